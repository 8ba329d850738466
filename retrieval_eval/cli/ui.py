"""``reval ui``: the live, read-only viewer over the run store."""

from __future__ import annotations

import click

from retrieval_eval.cli.options import db_option
from retrieval_eval.errors import PluginError


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
    is_flag=True,
    help="Allow a non-loopback --address: anyone who reaches it reads every stored run "
    "(questions, document ids, labels); there is no authentication.",
)
@db_option
def ui(address: str, expose: bool, db_url: str | None) -> None:
    """Browse the run store in a web browser: runs, a run, history, comparisons.

    Read-only: the viewer never changes a stored run (like every command, it creates
    the store or upgrades an old schema on first use). Needs the ``ui`` extra
    (``pip install 'retrieval-eval[ui]'``).
    """
    from retrieval_eval.cli.extras import require_extra

    require_extra("ui", "reval ui")
    from retrieval_eval.store import RunStore
    from retrieval_eval.web.address import parse_address

    where = parse_address(address, expose=expose)
    try:
        from retrieval_eval.web.serve import serve
    except ModuleNotFoundError as e:
        raise PluginError(
            f"reval ui needs the ui extra ({e.name} is missing): pip install 'retrieval-eval[ui]'"
        ) from e
    with RunStore.open(db_url) as store:

        def ready(url: str) -> None:
            click.echo(f"reval ui: serving {store.url} at {url} (read-only; Ctrl-C stops)")
            if not where.loopback:
                click.echo(
                    f"reval ui: warning: {where.host} is not loopback: anyone who reaches it "
                    "can read every stored run; there is no authentication",
                    err=True,
                )

        serve(store, where, on_ready=ready)
