"""``reval eval``: evaluate sets against retrievers, judge each run, save it, report.

Flow: load sets -> evaluate (retrievers opened and checked by the coordinator) -> per run:
find its baseline, judge, save -> render -> ``--output`` -> exit code. The measured runs
are always reported: a run-store failure is reported after the report is written (exit
3), and an interrupted evaluation is saved as interrupted before exiting 130.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from retrieval_eval.cli import exit_codes
from retrieval_eval.cli.eval_flow import Outcome, judge_and_save, load_sets, open_baseline
from retrieval_eval.cli.options import db_option, format_option, label_option, parse_ks
from retrieval_eval.cli.render import emit_report

if TYPE_CHECKING:
    from retrieval_eval.evaluation.coordinator import EvalOptions
    from retrieval_eval.questions.model import GoldenQuestionSet
    from retrieval_eval.records import RunResult


@click.command("eval")
@click.argument("positional", nargs=-1, metavar="[RETRIEVER]...")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="SET",
    help="Question set: a file (YAML, JSON, JSONL), a directory of them, or a "
    "registered set name. Repeat for several.",
)
@click.option(
    "--retriever",
    "retrievers",
    multiple=True,
    metavar="RETRIEVER",
    help="grpc://HOST:PORT, grpcs://..., a gRPC target (ipv4:a:p,b:p, dns:///h:p), "
    "a name from reval.toml, or PLUGIN[:ARG]. Repeat for several.",
)
@click.option(
    "--k",
    "ks",
    default="1,3",
    show_default=True,
    callback=parse_ks,
    metavar="K,K,...",
    help="Cut-offs to measure; 1 and 3 are always included.",
)
@click.option(
    "--overfetch",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Ask for max(k) x N results so chunk duplicates still leave max(k) distinct documents.",
)
@click.option(
    "--doc-id-separator",
    metavar="SEP",
    default=None,
    help="Chunk-id separator mapping result ids to documents (overrides Describe).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Calls in flight per retriever (latency is measured under this load).",
)
@click.option(
    "--latency-probe",
    "latency_probe",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="After the run, re-ask N questions one at a time and report their latency "
    "apart: latency without load (the latency gate then compares these).",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Deadline per call [default: the retriever's timeout in reval.toml, else 10].",
)
@format_option("text", "json", "junit", "markdown")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    metavar="FILE",
    help="Write the report to FILE (the text report still goes to the terminal).",
)
@db_option
@click.option("--no-save", is_flag=True, help="Do not store the runs (baselines are still read).")
@label_option("Free-form KEY=VALUE stored with each run (e.g. git_sha=...). Repeatable.")
@click.option(
    "--baseline",
    "baseline_id",
    metavar="RUN",
    help="Judge every run of this invocation against RUN (an id or unique prefix) instead "
    "of the pinned or latest complete run of the same set and retriever.",
)
@click.option(
    "--max-top1-drop",
    type=click.FloatRange(0, 1),
    default=0.1,
    show_default=True,
    help="A top-1 hit-rate drop strictly greater than this is a regression.",
)
@click.option(
    "--max-top3-drop",
    type=click.FloatRange(0, 1),
    default=0.1,
    show_default=True,
    help="A top-3 hit-rate drop strictly greater than this is a regression.",
)
@click.option(
    "--max-p95-latency-increase",
    "max_p95_ms",
    type=click.FloatRange(min=0),
    default=None,
    metavar="MS",
    help="A p95 latency increase above MS is a regression (unloaded p95 when both runs "
    "have a --latency-probe; a warning when their concurrencies differ).",
)
@click.option(
    "--fail-on-regression",
    is_flag=True,
    help="Exit 1 when a verdict is regression or incomparable.",
)
@click.option(
    "--token-env",
    metavar="VAR",
    help="Send the bearer token held in environment variable VAR to gRPC retrievers.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read named retrievers from this file instead of ./reval.toml.",
)
@click.pass_context
def eval_command(
    ctx: click.Context,
    positional: tuple[str, ...],
    sets: tuple[str, ...],
    retrievers: tuple[str, ...],
    ks: tuple[int, ...],
    overfetch: int,
    doc_id_separator: str | None,
    concurrency: int,
    latency_probe: int,
    timeout_s: float | None,
    fmt: str,
    output: Path | None,
    db_url: str | None,
    no_save: bool,
    labels: dict[str, str],
    baseline_id: str | None,
    max_top1_drop: float,
    max_top3_drop: float,
    max_p95_ms: float | None,
    fail_on_regression: bool,
    token_env: str | None,
    config_path: Path | None,
) -> None:
    """Evaluate every SET against every RETRIEVER and report hit rates and regressions.

    \b
    Examples:
      reval eval --set faq.yaml --retriever grpc://127.0.0.1:50051
      reval eval --set faq.yaml --set support.yaml --retriever bm25:./index \\
          --retriever grpc://search:50051 --format junit --output reval.xml \\
          --label git_sha=$GIT_SHA --fail-on-regression
    """
    from retrieval_eval.errors import ConfigError, Interrupted
    from retrieval_eval.evaluation.coordinator import EvalOptions
    from retrieval_eval.regression.types import Thresholds

    specs = [*positional, *retrievers]
    if not sets:
        raise click.UsageError("give at least one question set with --set")
    if not specs:
        raise click.UsageError("give at least one retriever with --retriever")
    token = None
    if token_env is not None:
        token = os.environ.get(token_env)
        if not token:
            raise ConfigError(f"--token-env: environment variable {token_env} is not set")
    thresholds = Thresholds(max_top1_drop, max_top3_drop, max_p95_ms)
    options = EvalOptions(
        ks=ks,
        overfetch=overfetch,
        doc_id_separator=doc_id_separator,
        concurrency=concurrency,
        latency_probe=latency_probe,
        timeout_s=timeout_s,
        labels=labels,
    )
    question_sets = load_sets(sets)
    baseline = open_baseline(db_url, baseline_id)  # a wrong RUN fails before measuring
    runs, interrupted = _evaluate(question_sets, specs, options, fmt, config_path, token)
    outcome: Outcome = judge_and_save(runs, baseline, thresholds, db_url, save=not no_save)
    outcome.interrupted = outcome.interrupted or interrupted
    emit_report(outcome.reports, fmt, output, outcome.warnings)
    if outcome.store_error is not None:
        raise outcome.store_error
    if outcome.interrupted:
        kept = "reported" if no_save else "saved as interrupted and reported"
        raise Interrupted(f"interrupted: the measured part was {kept}")
    if fail_on_regression and any(
        r.verdict is not None and r.verdict.fails() for r in outcome.reports
    ):
        ctx.exit(exit_codes.REGRESSION)


def _evaluate(
    question_sets: list[GoldenQuestionSet],
    specs: list[str],
    options: EvalOptions,
    fmt: str,
    config_path: Path | None,
    token: str | None,
) -> tuple[list[RunResult], bool]:
    """The runs, and whether Ctrl-C cut them short (then they hold what was measured)."""
    from retrieval_eval.cli.progress import RichProgress, wants_progress
    from retrieval_eval.evaluation.coordinator import EvaluationInterrupted, evaluate

    def run(progress: RichProgress | None) -> list[RunResult]:
        return evaluate(
            question_sets, specs, options, progress=progress, config_path=config_path, token=token
        )

    try:
        if not wants_progress(fmt):
            return run(None), False
        with RichProgress() as progress:
            return run(progress), False
    except EvaluationInterrupted as e:
        if not e.runs:
            raise
        return e.runs, True
