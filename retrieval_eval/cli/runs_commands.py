"""``reval runs``: the stored history — list, show, compare, pin, unpin, prune, export."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from retrieval_eval.cli.options import db_option, format_option, label_option
from retrieval_eval.cli.render import emit_report, terminal_width
from retrieval_eval.regression.types import Thresholds

if TYPE_CHECKING:
    from retrieval_eval.store import RunStore

#: Defaults shown by --help come from the library's options.
_THRESHOLDS = Thresholds()


@contextmanager
def _store(db_url: str | None) -> Iterator[RunStore]:
    from retrieval_eval.store import RunStore

    store = RunStore.open(db_url)
    try:
        yield store
    finally:
        store.close()


@click.group("runs")
def runs() -> None:
    """The run history: list, show and compare runs; pin baselines; prune; export."""


@runs.command("list")
@click.option("--set", "set_name", metavar="SET", help="Only runs of this set.")
@click.option("--retriever", metavar="RETRIEVER", help="Only this identifier or target.")
@label_option("Only runs with this label. Repeatable (all must match).")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@db_option
@format_option("text", "json")
def list_runs(
    set_name: str | None,
    retriever: str | None,
    labels: dict[str, str],
    limit: int,
    db_url: str | None,
    fmt: str,
) -> None:
    """List stored runs, newest first (* marks a pinned baseline)."""
    from retrieval_eval.report.history import summaries_json, summaries_table

    with _store(db_url) as store:
        found = store.list_runs(
            set_name=set_name, retriever=retriever, labels=labels or None, limit=limit
        )
    if fmt == "json":
        click.echo(json.dumps(summaries_json(found), indent=2, ensure_ascii=False))
    elif not found:
        click.echo("no runs stored yet", err=True)
    else:
        click.echo(summaries_table(found, width=terminal_width()), nl=False)


@runs.command("show")
@click.argument("run_id", metavar="RUN")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE")
@db_option
@format_option("text", "json", "junit", "markdown")
def show(run_id: str, output: Path | None, db_url: str | None, fmt: str) -> None:
    """Show one run (an id or a unique prefix) with every question."""
    from retrieval_eval.report.model import RunReport

    with _store(db_url) as store:
        run = store.get(run_id)
    emit_report([RunReport(run)], fmt, output)


@runs.command("compare")
@click.argument("run_a", metavar="RUN_A")
@click.argument("run_b", metavar="RUN_B")
@click.option(
    "--max-top1-drop",
    type=click.FloatRange(0, 1),
    default=_THRESHOLDS.max_top1_drop,
    show_default=True,
)
@click.option(
    "--max-top3-drop",
    type=click.FloatRange(0, 1),
    default=_THRESHOLDS.max_top3_drop,
    show_default=True,
)
@click.option(
    "--max-p95-latency-increase", "max_p95_ms", type=click.FloatRange(min=0), metavar="MS"
)
@db_option
@format_option("text", "json", "markdown")
def compare(
    run_a: str,
    run_b: str,
    max_top1_drop: float,
    max_top3_drop: float,
    max_p95_ms: float | None,
    db_url: str | None,
    fmt: str,
) -> None:
    """Compare RUN_B against RUN_A: deltas (B - A), flipped questions, McNemar p-values.

    Any two runs of the same set compare, e.g. two different retrievers; runs scored
    against different labels or parameters are reported incomparable.
    """
    from retrieval_eval.regression import compare as compare_runs
    from retrieval_eval.regression.types import Thresholds
    from retrieval_eval.report.history import comparison_json, comparison_text
    from retrieval_eval.report.model import RunReport
    from retrieval_eval.report.render import render

    with _store(db_url) as store:
        a, b = store.get(run_a), store.get(run_b)
    verdict = compare_runs(a, b, Thresholds(max_top1_drop, max_top3_drop, max_p95_ms))
    if fmt == "json":
        click.echo(json.dumps(comparison_json(a, b, verdict), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        click.echo(render(RunReport(b, verdict), "markdown"), nl=False)
    else:
        color = sys.stdout.isatty()
        click.echo(comparison_text(a, b, verdict, color=color, width=terminal_width()), nl=False)


@runs.command("pin")
@click.argument("run_id", metavar="RUN")
@db_option
def pin(run_id: str, db_url: str | None) -> None:
    """Make RUN the baseline of its set × retriever (it must be complete)."""
    with _store(db_url) as store:
        full = store.pin(run_id)
    click.echo(f"pinned {full} as the baseline of its set and retriever")


@runs.command("unpin")
@click.argument("run_id", metavar="RUN")
@db_option
def unpin(run_id: str, db_url: str | None) -> None:
    """Stop using RUN as a pinned baseline (the latest complete run is used again)."""
    with _store(db_url) as store:
        full = store.unpin(run_id)
    click.echo(f"unpinned {full}")


@runs.command("prune")
@click.option(
    "--keep",
    type=click.IntRange(min=0),
    required=True,
    metavar="N",
    help="Runs to keep per set × retriever (newest first).",
)
@db_option
def prune(keep: int, db_url: str | None) -> None:
    """Delete old runs, keeping the newest N per set × retriever and every pinned baseline."""
    with _store(db_url) as store:
        removed = store.prune(keep)
    click.echo(f"pruned {removed} runs (kept the newest {keep} per set × retriever and pins)")


@runs.command("export")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--trec-run",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the ranking as a TREC run file.",
)
@click.option(
    "--qrels",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the expected documents as TREC qrels.",
)
@click.option("--run-name", metavar="NAME", help="Run name column (default: the run id).")
@db_option
def export(
    run_id: str,
    trec_run: Path | None,
    qrels: Path | None,
    run_name: str | None,
    db_url: str | None,
) -> None:
    """Export RUN for trec_eval, ranx or ir_measures (distinct documents, rank order)."""
    from retrieval_eval.report.trec import export_trec

    if trec_run is None and qrels is None:
        raise click.UsageError("give --trec-run FILE and/or --qrels FILE")
    with _store(db_url) as store:
        run = store.get(run_id)
    lines, judgements = export_trec(run, trec_run, qrels, run_name)
    if trec_run is not None:
        click.echo(f"wrote {lines} ranked documents to {trec_run}")
    if qrels is not None:
        click.echo(f"wrote {judgements} relevance judgements to {qrels}")
