"""``reval runs accept``: accept an intended drop, so that the next run of the same
retriever is judged against it (who, when and why are stored and shown)."""

from __future__ import annotations

import getpass
import os

import click

from retrieval_eval.cli.options import db_option
from retrieval_eval.cli.runs.store import open_run_store


def _default_user() -> str:
    """$REVAL_USER, else the login name (CI sets its own, e.g. the job's actor)."""
    named = os.environ.get("REVAL_USER", "").strip()
    if named:
        return named
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container without a passwd entry)
        return "unknown"


@click.command("accept")
@click.argument("run_id", metavar="RUN")
@click.option("--reason", required=True, metavar="TEXT", help="Why the drop is intended.")
@click.option(
    "--by",
    metavar="NAME",
    default=None,
    help="Who accepts it [default: $REVAL_USER, else the login name].",
)
@db_option
def accept(run_id: str, reason: str, by: str | None, db_url: str | None) -> None:
    """Accept RUN (complete; e.g. one judged regression) as the baseline of its set and
    retriever: the next run of the same retriever is judged against it, unless a run is
    pinned. Runs judged regression, incomparable or incomplete never become a baseline
    otherwise."""
    with open_run_store(db_url) as store:
        summary = store.accept(run_id, reason, by if by is not None else _default_user())
    acceptance = summary.acceptance
    assert acceptance is not None
    click.echo(
        f"accepted {summary.run_id} as the baseline of {summary.set_name} × "
        f"{summary.retriever_target} (by {acceptance.by}: {acceptance.reason})"
    )
