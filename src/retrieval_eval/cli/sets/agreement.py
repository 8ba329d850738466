"""``reval sets agreement``: how far two judges of a set agree (Cohen's kappa)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("agreement", short_help="Cohen's kappa between two judges of a set.")
@click.argument("set_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--judge", "judges", multiple=True, help="A judge to compare; give two.")
def agreement_command(set_file: Path, judges: tuple[str, ...]) -> None:
    """Agreement of two judges over the relevance decisions both made (Cohen's kappa),
    on the questions both judged."""
    from retrieval_eval.labelling.agreement import agreement

    result = agreement(set_file, judges)
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
