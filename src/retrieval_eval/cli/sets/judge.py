"""``reval sets judge``: the judging page of a drafted set, served on loopback."""

from __future__ import annotations

from pathlib import Path

import click

from retrieval_eval.cli.options import db_option
from retrieval_eval.errors import PluginError
from retrieval_eval.version import install_extra


@click.command("judge", short_help="Judge a drafted set in the viewer (prints its URL).")
@click.argument("set_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--corpus",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Corpus JSONL (BEIR style; .gz ok): the documents the page shows.",
)
@click.option(
    "--address",
    default="127.0.0.1:0",
    show_default=True,
    metavar="HOST:PORT",
    help="Where the viewer listens (port 0 picks a free one); loopback only.",
)
@click.option("--judge", "judge", help="Your name in the judgement history [default: "
              "$REVAL_JUDGE, else the login name].")  # fmt: skip
@db_option
def judge_command(
    set_file: Path, corpus: Path, address: str, judge: str | None, db_url: str | None
) -> None:
    """Open the judging page for SET_FILE in the reval ui viewer, on loopback, and print
    its URL. Each save writes the file back (comments and layout kept); Ctrl-C stops."""
    from retrieval_eval.cli.extras import require_extra

    require_extra("ui", "reval sets judge")
    from retrieval_eval.store.store import RunStore
    from retrieval_eval.web.address import parse_address

    where = parse_address(address, expose=False)
    try:
        from retrieval_eval.web.judging import JudgingDesk
        from retrieval_eval.web.serve import serve
    except ModuleNotFoundError as e:
        raise PluginError(
            f"reval sets judge needs the ui extra ({e.name} is missing): {install_extra('ui')}"
        ) from e
    desk = JudgingDesk(judge) if judge else JudgingDesk()
    key = desk.add(set_file, corpus)
    with RunStore.open(db_url) as store:

        def ready(url: str) -> None:
            click.echo(f"{url.rstrip('/')}/judge/{key}")
            click.echo(f"reval sets judge: judging {set_file} as {desk.judge} (Ctrl-C stops)")

        serve(store, where, on_ready=ready, desk=desk)
