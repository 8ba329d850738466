"""``reval runs compare``: many runs side by side, the first the reference."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from retrieval_eval.cli.options import (
    count_option,
    db_option,
    file_option,
    format_option,
    rbo_p_option,
    threshold_options,
    thresholds_or_defaults,
)
from retrieval_eval.cli.render import emit_html, terminal_width
from retrieval_eval.cli.runs.store import open_run_store


@click.command("compare")
@click.argument("run_ids", metavar="RUN RUN [RUN ...]", nargs=-1, required=True)
@click.option(
    "--questions",
    type=click.Choice(["all", "disagree", "none"]),
    default="disagree",
    show_default=True,
    help="Per-question grid: every question, only those where the runs differ, or none.",
)
@count_option(
    "--overlap-k",
    "Depth of the rank overlap (Jaccard and RBO over the top K distinct documents).",
    default=10,
    metavar="K",
)
@rbo_p_option
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the paired bootstrap (same runs and seed give the same intervals).",
)
@threshold_options
@file_option("--output", "With --format html: write the page to FILE.")
@db_option
@format_option("text", "json", "markdown", "html")
def compare(
    run_ids: tuple[str, ...],
    questions: str,
    overlap_k: int,
    rbo_p: float,
    seed: int,
    max_top1_drop: float | None,
    max_top3_drop: float | None,
    max_p95_ms: float | None,
    output: Path | None,
    db_url: str | None,
    fmt: str,
) -> None:
    """Compare runs side by side; the first RUN is the reference.

    Each run against the reference: metric deltas with paired bootstrap intervals, exact
    McNemar tests with Holm's correction across the runs, a regression verdict by the
    thresholds, rank overlap (Jaccard, RBO), breakdowns and a per-question grid. Runs
    scored against other labels are reported incomparable and left out.
    """
    from retrieval_eval.comparison.compare import compare_runs
    from retrieval_eval.comparison.results import QuestionsShown

    if len(run_ids) < 2:
        raise click.UsageError("give at least two runs: the reference first, then the others")
    with open_run_store(db_url) as store:
        runs = [store.get(run_id) for run_id in run_ids]
    comparison = compare_runs(
        runs,
        overlap_k=overlap_k,
        rbo_p=rbo_p,
        seed=seed,
        thresholds=thresholds_or_defaults(max_top1_drop, max_top3_drop, max_p95_ms),
    )
    shown = QuestionsShown(questions)
    if fmt == "html":
        from retrieval_eval.report.comparison.html_view import render_comparison_html

        emit_html(render_comparison_html(comparison, shown), output)
    elif fmt == "json":
        from retrieval_eval.report.comparison.json_format import comparison_to_dict

        click.echo(json.dumps(comparison_to_dict(comparison, shown), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        from retrieval_eval.report.comparison.markdown import render_comparison_markdown

        click.echo(render_comparison_markdown(comparison, shown), nl=False)
    else:
        from retrieval_eval.report.comparison.text import render_comparison_text

        text = render_comparison_text(
            comparison, shown, color=sys.stdout.isatty(), width=terminal_width()
        )
        click.echo(text, nl=False)
