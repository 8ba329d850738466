"""The server SDK: ``serve(obj)`` makes any object with ``retrieve(question, limit)`` a gRPC
Retriever service, with health checking and reflection, in the background.

``retrieve`` may be sync (called in worker threads) or ``async def`` (awaited on the
server's own event loop); it returns ``RetrievedItem`` records or plain string ids.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import Retriever
from retrieval_eval.retrievers.server.backends import AioBackend, Backend, SyncBackend
from retrieval_eval.retrievers.server.servicer import AsyncServicer, SyncServicer
from retrieval_eval.retrievers.tls import read_pem

log = logging.getLogger(__name__)

__all__ = ["ServerHandle", "ServerTls", "serve"]


@dataclass(frozen=True, slots=True)
class ServerTls:
    """PEM files for a TLS server; with ``client_ca`` every client must present a
    certificate signed by it (mutual TLS)."""

    cert_chain: Path
    private_key: Path
    client_ca: Path | None = None

    def credentials(self) -> grpc.ServerCredentials:
        """Server credentials; ``ConfigError`` naming a file that cannot be read."""
        key = read_pem(self.private_key, "TLS private key")
        chain = read_pem(self.cert_chain, "TLS certificate chain")
        ca = read_pem(self.client_ca, "TLS client CA") if self.client_ca else None
        return grpc.ssl_server_credentials(
            [(key, chain)], root_certificates=ca, require_client_auth=ca is not None
        )


class ServerHandle:
    """A running server: its bound ``address`` and ``port``, ``stop()`` and ``wait()``.

    A context manager: leaving the block stops the server.
    """

    def __init__(self, backend: Backend, address: str) -> None:
        self._backend = backend
        #: The bound TCP port (0 for a unix socket).
        self.port = 0 if address.startswith("unix") else backend.port
        self.address = address
        self._stopped = False

    def stop(self, grace: float | None = 1.0) -> None:
        """Report NOT_SERVING, let in-flight calls finish for up to ``grace`` s, stop."""
        if self._stopped:
            return
        self._stopped = True
        self._backend.stop(grace)
        log.info("retriever server on %s stopped", self.address)

    def wait(self) -> None:
        """Block until the server stops; Ctrl-C stops it and returns."""
        try:
            while not self._backend.join(0.25):
                pass
        except KeyboardInterrupt:
            log.info("interrupted; stopping the retriever server on %s", self.address)
            self.stop()

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ServerHandle(address={self.address!r})"


def serve(
    retriever: Retriever,
    address: str = "127.0.0.1:0",
    *,
    describe: RetrieverDescription | None = None,
    token: str | None = None,
    tls: ServerTls | None = None,
    max_concurrency: int = 64,
) -> ServerHandle:
    """Serve ``retriever`` over gRPC on ``address`` (port 0 picks a free port).

    ``describe`` overrides ``retriever.describe()`` (default: the class name); ``token``
    makes Retrieve and Describe require ``authorization: Bearer <token>`` (health and
    reflection stay open for probes); ``tls`` serves TLS, mutual when it names a client
    CA; ``max_concurrency`` bounds concurrent calls into user code. Returns once the
    port is bound; raises ``InfrastructureError`` when it cannot be.
    """
    method = getattr(retriever, "retrieve", None)
    if not callable(method):
        raise TypeError(f"{type(retriever).__name__} has no callable retrieve(question, limit)")
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
    credentials = tls.credentials() if tls is not None else None
    backend: Backend
    if _is_async(method):
        servicer = AsyncServicer(retriever, describe, token, max_concurrency)
        backend = AioBackend(servicer, address, credentials)
    else:
        backend = SyncBackend(
            SyncServicer(retriever, describe, token, max_concurrency),
            address,
            credentials,
            max_concurrency,
        )
    if not address.startswith("unix"):  # unix:PATH and unix-abstract:NAME have no port
        address = f"{address.rsplit(':', 1)[0]}:{backend.port}"
    handle = ServerHandle(backend, address)
    log.info("retriever server listening on %s (tls=%s)", handle.address, tls is not None)
    return handle


def _is_async(method: Any) -> bool:
    call = getattr(method, "__call__", None)  # noqa: B004 - an object with async __call__
    return inspect.iscoroutinefunction(method) or inspect.iscoroutinefunction(call)
