"""``reval ui``: the live, read-only viewer over the run store."""

from __future__ import annotations

from pathlib import Path

import click

from retrieval_eval.cli.options import db_option
from retrieval_eval.errors import InputError, PluginError
from retrieval_eval.version import install_extra


@click.command("ui")
@click.option(
    "--address",
    default="127.0.0.1:8765",
    show_default=True,
    metavar="HOST:PORT",
    help="Where to listen (port 0 picks a free one). Loopback only, unless --expose.",
)
@click.option(
    "--expose",
    multiple=True,
    is_flag=False,
    flag_value="",
    metavar="[NAME]",
    help="Allow a non-loopback --address: anyone who reaches it reads every stored run "
    "(questions, document ids, labels); there is no authentication. Repeat with a NAME "
    "for each host name browsers use to reach it: only loopback names, the bound address "
    "and these are answered as Host (DNS rebinding).",
)
@click.option(
    "--judge",
    "drafts",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="DRAFT",
    help="A drafted set file to judge at /judge (repeatable; needs --corpus).",
)
@click.option(
    "--corpus",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Corpus JSONL of the --judge drafts: the documents the judging page shows.",
)
@db_option
def ui(
    address: str,
    expose: tuple[str, ...],
    drafts: tuple[Path, ...],
    corpus: Path | None,
    db_url: str | None,
) -> None:
    """Browse the run store in a web browser: runs, a run, history, comparisons, and
    judge drafted sets (--judge DRAFT --corpus CORPUS) at /judge.

    Read-only over runs: the viewer never changes a stored run (like every command, it creates
    the store or upgrades an old schema on first use). Needs the ui extra:

    \b
        pip install 'reval-ir[ui]'
    """
    from retrieval_eval.cli.extras import require_extra

    require_extra("ui", "reval ui")
    from retrieval_eval.store.store import RunStore
    from retrieval_eval.web.address import parse_address

    where = parse_address(address, expose=bool(expose))
    if drafts and corpus is None:
        raise InputError("--judge needs --corpus: the corpus the draft's documents come from")
    if drafts and expose:
        raise InputError("--judge cannot be combined with --expose: saves write the draft file")
    try:
        from retrieval_eval.web.judging import JudgingDesk
        from retrieval_eval.web.serve import serve
    except ModuleNotFoundError as e:
        raise PluginError(
            f"reval ui needs the ui extra ({e.name} is missing): {install_extra('ui')}"
        ) from e
    desk = JudgingDesk()
    keys = [desk.add(draft, corpus) for draft in drafts if corpus is not None]
    with RunStore.open(db_url) as store:

        def ready(url: str) -> None:
            click.echo(f"reval ui: serving {store.url} at {url} (read-only; Ctrl-C stops)")
            for key in keys:
                click.echo(f"reval ui: judging at {url.rstrip('/')}/judge/{key}")
            if not where.loopback:
                click.echo(
                    f"reval ui: warning: {where.host} is not loopback: anyone who reaches it "
                    "can read every stored run; there is no authentication",
                    err=True,
                )

        serve(store, where, on_ready=ready, desk=desk, exposed=[name for name in expose if name])
