"""``reval fusion tune NAME --set SET``: a thin layer over ``retrieval_eval.tuning``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from retrieval_eval.cli.options import config_option, format_option, timeout_option
from retrieval_eval.errors import InputError
from retrieval_eval.tuning.tune import TuneOptions, tune_fusion

_DEFAULTS = TuneOptions()


@click.group()
def fusion() -> None:
    """Fused (hybrid) retrievers of reval.toml: tune their settings honestly."""


@fusion.command("tune")
@click.argument("name")
@click.option("--set", "set_source", required=True, metavar="SET", help="Question set.")
@click.option(
    "--metric",
    default=_DEFAULTS.metric,
    show_default=True,
    help="Hit rate to maximise: top1_hit_rate, top3_hit_rate or hit_rate@K.",
)
@click.option(
    "--folds",
    type=click.IntRange(min=2),
    default=_DEFAULTS.folds,
    show_default=True,
    help="Cross-validation folds (stratified by form).",
)
@click.option(
    "--seed", type=int, default=_DEFAULTS.seed, show_default=True, help="Seed of the folds."
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=_DEFAULTS.concurrency,
    show_default=True,
    help="Calls in flight per member.",
)
@timeout_option
@config_option
@format_option("text", "json")
def tune_command(
    name: str,
    set_source: str,
    metric: str,
    folds: int,
    seed: int,
    concurrency: int,
    timeout_s: float | None,
    config_path: Path | None,
    fmt: str,
) -> None:
    """Tune fusion NAME on SET: a grid over method (rrf, combsum, combmnz), RRF k and
    member weights, each member asked once per question, scored by k-fold
    cross-validation; compares the held-out result with each member alone and with plain
    RRF, and prints the [retrievers.NAME] block to paste.

    \b
    Example:
      reval fusion tune hybrid --set faq.yaml --metric top3_hit_rate --folds 5
    """
    from retrieval_eval.cli.eval.flow import load_sets
    from retrieval_eval.report.tuning import tuning_text, tuning_to_dict

    sets = load_sets([set_source])
    if len(sets) != 1:
        raise InputError(f"--set {set_source!r} holds {len(sets)} sets; tune on one")
    options = TuneOptions(
        metric=metric, folds=folds, seed=seed, concurrency=concurrency, timeout_s=timeout_s
    )
    result = tune_fusion(sets[0], name, options, config_path=config_path)
    if fmt == "json":
        click.echo(json.dumps(tuning_to_dict(result), indent=2))
    else:
        click.echo(tuning_text(result))
