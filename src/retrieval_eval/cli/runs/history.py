"""``reval runs history``: one set × retriever over time."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from retrieval_eval.cli.options import count_option, db_option, file_option, format_option
from retrieval_eval.cli.render import emit_html, terminal_width
from retrieval_eval.cli.runs.store import open_run_store


@click.command("history")
@click.option("--set", "set_name", metavar="SET", required=True, help="The question set's name.")
@click.option(
    "--retriever",
    metavar="ID",
    required=True,
    help="The retriever's identifier (as in `runs list`) or target.",
)
@count_option("--limit", "The N newest runs.", default=20)
@click.option(
    "--label-version",
    "label_version",
    metavar="FINGERPRINT|latest|all",
    default="all",
    show_default=True,
    help="Only the runs scored on one version of the labels: a set fingerprint (or the "
    "first digits of it, as the history names versions), or the newest run's.",
)
@file_option("--output", "With --format html: write the page to FILE.")
@db_option
@format_option("text", "json", "markdown", "html")
def history(
    set_name: str,
    retriever: str,
    limit: int,
    label_version: str,
    output: Path | None,
    db_url: str | None,
    fmt: str,
) -> None:
    """One set × retriever over time: rates with intervals, variants, stored verdicts,
    the pinned baseline; then flaky and never-hit questions.

    Runs scored on other versions of the labels (a rescore, a set that grew) are told
    apart, and each stored ranking is shown beside its rescores."""
    from retrieval_eval.comparison.history import build_history
    from retrieval_eval.comparison.label_versions import select_labels, shown_label

    with open_run_store(db_url) as store:
        stored = select_labels(store.history(set_name, retriever, limit), label_version)
        where = store.url
    if not stored and fmt == "html":  # a page of nothing: most likely a misspelt name
        from retrieval_eval.errors import UnknownNameError

        raise UnknownNameError(
            "set × retriever",
            f"{set_name} × {retriever}",
            hint=f"no runs in {where}; `reval runs list` shows the stored ones",
        )
    if not stored:
        click.echo(f"no runs of set {set_name!r} with retriever {retriever!r}", err=True)
    result = build_history(
        set_name, retriever, stored, labels_shown=shown_label(stored, label_version)
    )
    if fmt == "html":
        from retrieval_eval.report.history.html_view import render_history_html

        emit_html(render_history_html(result), output)
    elif fmt == "json":
        from retrieval_eval.report.history.json_format import history_to_dict

        click.echo(json.dumps(history_to_dict(result), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        from retrieval_eval.report.history.markdown import render_history_markdown

        click.echo(render_history_markdown(result), nl=False)
    elif stored:
        from retrieval_eval.report.history.text import render_history_text

        text = render_history_text(result, color=sys.stdout.isatty(), width=terminal_width())
        click.echo(text, nl=False)
