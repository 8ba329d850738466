"""Run the viewer with uvicorn until interrupted; report the bound address once listening."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Iterable

import uvicorn

from retrieval_eval.errors import InputError
from retrieval_eval.store.store import RunStore
from retrieval_eval.web.address import Address
from retrieval_eval.web.app import create_app
from retrieval_eval.web.hosts import HostRule
from retrieval_eval.web.judging import JudgingDesk


def serve(
    store: RunStore,
    address: Address,
    *,
    on_ready: Callable[[str], None] | None = None,
    desk: JudgingDesk | None = None,
    exposed: Iterable[str] = (),
) -> None:
    """Serve ``store`` at ``address`` (port 0: a free port) until Ctrl-C or SIGTERM,
    answering loopback names, the bound address and the ``exposed`` names as ``Host``."""
    family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((address.host, address.port))
    except OSError as e:
        sock.close()

        raise InputError(f"cannot listen on {address.url()}: {e.strerror or e}") from e
    bound = Address(address.host, sock.getsockname()[1])
    config = uvicorn.Config(
        create_app(store, desk, hosts=HostRule.for_address(address.host, exposed)),
        log_level="warning",
        access_log=False,
        lifespan="off",
    )
    server = uvicorn.Server(config)

    async def main() -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started and on_ready is not None:
            on_ready(bound.url())
        await task

    try:
        asyncio.run(main())
    finally:
        sock.close()
