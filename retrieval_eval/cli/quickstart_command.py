"""``reval quickstart``: the whole pipeline on the shipped example data, then what to try next."""

from __future__ import annotations

import shutil
import sys

import click

NEXT_STEPS = """\
Next, try:
  reval quickstart                            run again: the report compares with this run
  reval runs list                             the runs saved so far
  reval check-retriever grpc://HOST:PORT      check your own retriever against the contract
  reval eval --set my-set.yaml grpc://HOST:PORT
                                              measure your retriever on your golden set
The README shows a complete retriever server in a few lines of Python."""


@click.command("quickstart")
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="Run store URL (default: $REVAL_DATABASE_URL, else $REVAL_HOME/runs.sqlite).",
)
def quickstart(db_url: str | None) -> None:
    """Measure BM25 on the shipped example data: index, serve over gRPC, evaluate, save.

    Needs nothing but the BM25 plugin. Run it twice: the second report compares with
    the first.
    """
    from retrieval_eval.errors import Interrupted
    from retrieval_eval.evaluation.results import RunState
    from retrieval_eval.quickstart import run_quickstart
    from retrieval_eval.report.model import RunReport
    from retrieval_eval.report.terminal import render_text

    def notify(message: str) -> None:
        click.echo(f"· {message}", err=True)

    result = run_quickstart(db_url, notify=notify)
    width = min(shutil.get_terminal_size((120, 24)).columns, 140)
    text = render_text(
        [RunReport(result.run, result.verdict)], color=sys.stdout.isatty(), width=width
    )
    click.echo(text, nl=False)
    if result.run.state is RunState.INTERRUPTED:
        raise Interrupted("quickstart interrupted; the measured part was saved")
    click.echo(
        f"\nquickstart finished in {result.seconds:.1f} s; runs are stored in {result.database}"
    )
    click.echo(NEXT_STEPS)
