"""``reval serve NAME``: any retriever reval can open, served as a gRPC Retriever.

A thin layer over ``retrieval_eval.retrievers.server.forward``: one team's reval.toml
entry (an http, command or postgres kind, a fusion, a plugin) becomes an address another
team's CI measures with ``reval eval --retriever grpc://HOST:PORT``.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import click

from retrieval_eval.cli.options import (
    config_option,
    read_token,
    serve_options,
    server_tls,
    timeout_option,
)


@click.command("serve")
@click.argument("spec", metavar="NAME")
@serve_options
@config_option
@timeout_option
def serve_command(
    spec: str,
    address: str,
    config_path: Path | None,
    timeout_s: float | None,
    token_env: str | None,
    max_concurrency: int,
    tls_cert: Path | None,
    tls_key: Path | None,
    tls_client_ca: Path | None,
) -> None:
    """Serve the retriever NAME (a reval.toml name, a plugin such as bm25:DIR, or an
    address) over gRPC with health checking and reflection, until Ctrl-C or SIGTERM.

    Errors of the retriever reach callers as the matching status code (an unreachable
    HTTP endpoint is UNAVAILABLE, a slow one DEADLINE_EXCEEDED); the caller's deadline
    is passed on to the retriever.
    """
    from retrieval_eval.retrievers.opening import open_retriever

    token = read_token(token_env)
    tls = server_tls(tls_cert, tls_key, tls_client_ca)
    credentials = tls.credentials() if tls is not None else None
    retriever = open_retriever(spec, timeout_s=timeout_s, config_path=config_path)
    asyncio.run(_serve(retriever, address, token, credentials, max_concurrency, tls is not None))


async def _serve(
    retriever: object,
    address: str,
    token: str | None,
    credentials: object,
    max_concurrency: int,
    secure: bool,
) -> None:
    from retrieval_eval.retrievers.protocol import AsyncRetriever
    from retrieval_eval.retrievers.server.forward import serve_async

    assert isinstance(retriever, AsyncRetriever)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        server = await serve_async(
            retriever,
            address,
            token=token,
            credentials=credentials,
            max_concurrency=max_concurrency,
        )
        try:
            click.echo(
                f"serving {retriever.target} on {server.address}"
                f"{' with TLS' if secure else ''}; Ctrl-C to stop"
            )
            await stop.wait()
        finally:
            await server.stop()
    finally:
        await retriever.close()
