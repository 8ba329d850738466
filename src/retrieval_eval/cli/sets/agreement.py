"""``reval sets agreement``: how far two judges of a set agree (Cohen's kappa), and taking
a model's grades as labels when it agrees with a person well enough."""

from __future__ import annotations

from pathlib import Path

import click

from retrieval_eval.cli.options import config_option


@click.command("agreement", short_help="Cohen's kappa between two judges of a set.")
@click.argument("set_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--judge",
    "judges",
    multiple=True,
    help="A judge to compare; give two (with --reference: one, else the labels).",
)
@click.option(
    "--reference",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    metavar="SET",
    help="Compare SET_FILE's labels (or its --judge's grades) with this set file's "
    "labels (e.g. a person's), on the questions and documents both judged.",
)
@click.option(
    "--accept",
    is_flag=True,
    help="Take the model judge's grades (llm:...) as labels of the questions no person "
    "judged, if its agreement reaches reval.toml's [labels] rule; else exit 1.",
)
@config_option
@click.pass_context
def agreement_command(
    ctx: click.Context,
    set_file: Path,
    judges: tuple[str, ...],
    reference: Path | None,
    accept: bool,
    config_path: Path | None,
) -> None:
    """Agreement of two judges over the relevance decisions both made (Cohen's kappa with
    its 95% interval, at every grade threshold they used, and the confusion of their
    grades), on the questions both judged.

    With --reference SET, SET_FILE's labels (a judged question's graded, expected and
    decided documents) are compared with SET's labels instead: a model-judged set
    against a person's, say."""
    from retrieval_eval.labelling.agreement import USEFUL_HALF_WIDTH, agreement
    from retrieval_eval.labelling.label_grades import agreement_with_reference

    if reference is None:
        result = agreement(set_file, judges)
    elif accept or len(judges) > 1:
        raise click.UsageError("--reference compares with one --judge at most, without --accept")
    else:
        result = agreement_with_reference(set_file, reference, judges[0] if judges else None)
    first, second = result.judges
    kappa = "undefined" if result.kappa is None else f"{result.kappa:.3f}"
    click.echo(f"judges: {first} and {second}")
    click.echo(f"questions judged by both: {result.questions}; decisions compared: {result.items}")
    click.echo(
        f"both relevant {result.both}, only {first} {result.first_only}, "
        f"only {second} {result.second_only}, neither {result.neither}"
    )
    click.echo(f"observed agreement {result.observed:.3f}, by chance {result.expected:.3f}")
    click.echo(f"Cohen's kappa: {kappa}")
    for t in result.thresholds:
        if t.kappa is None or t.low is None or t.high is None:
            continue
        more = (
            "narrow enough"
            if not t.more_needed
            else f"about {t.more_needed} more shared decisions for +/-{USEFUL_HALF_WIDTH:g}"
        )
        click.echo(
            f"grade >= {t.threshold}: kappa {t.kappa:.3f}, 95% interval "
            f"[{t.low:.3f}, {t.high:.3f}] ({more})"
        )
    if len({g for pair, _ in result.confusion for g in pair}) > 2 or accept:
        cells = ", ".join(f"{a}/{b}: {n}" for (a, b), n in result.confusion)
        click.echo(f"grades {first}/{second}: {cells}")
    if accept:
        _accept(ctx, set_file, result, config_path)


def _accept(ctx: click.Context, set_file: Path, result: object, config_path: Path | None) -> None:
    from retrieval_eval.errors import ConfigError
    from retrieval_eval.labelling.agreement import Agreement
    from retrieval_eval.labelling.llm.accept import AcceptRule, apply_model_labels, judge_rule
    from retrieval_eval.retrievers.config import load_toml
    from retrieval_eval.retrievers.config_file import default_config_path

    assert isinstance(result, Agreement)
    models = [j for j in result.judges if j.startswith("llm:")]
    if len(models) != 1:
        raise click.UsageError("--accept compares one model judge (llm:...) with one person")
    path = config_path or default_config_path()
    rule = AcceptRule.from_config(load_toml(path), path) if path.is_file() else None
    if rule is None:
        raise ConfigError(
            f"{path}: no [labels] rule (min_kappa, min_items): a team decides how far a "
            "model must agree with its judges before its grades become labels"
        )
    verdict = judge_rule(result, rule)
    if not verdict.accepted:
        click.echo(f"not accepted: {verdict.why}; the model's grades stay drafts", err=True)
        ctx.exit(1)
    taken = apply_model_labels(set_file, models[0], result)
    click.echo(f"accepted ({verdict.why}): {taken} questions now judged by {models[0]}")
