"""Serve an ``AsyncRetriever`` (a reval.toml kind, a fusion, a plugin, a remote retriever)
as a gRPC Retriever on the caller's event loop: ``reval serve NAME``, and the way
``check-retriever`` reaches a kind over the same wire as any server.

It runs on the caller's loop (not the SDK's background thread) because the retriever's
own resources (an HTTP client, a child process, database connections) belong to the loop
that opened them. A ``RetrieverError`` becomes the status code of its kind (unavailable ->
UNAVAILABLE, timeout -> DEADLINE_EXCEEDED, ...) with its details, so the far side sees the
same error kind a local evaluation would record. The caller's deadline is passed on.
"""

from __future__ import annotations

import asyncio
import logging

import grpc
from grpc_health.v1 import health

from retrieval_eval.errors import RetrieverError
from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.protocol import AsyncRetriever
from retrieval_eval.retrievers.server.backends import _OPTIONS, _SERVING, _bind, _register
from retrieval_eval.retrievers.server.servicer import _Base
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)

_S = grpc.StatusCode
#: A ``RetrieverError`` kind -> the status code that carries it.
CODE_FOR_KIND: dict[str, grpc.StatusCode] = {
    "unavailable": _S.UNAVAILABLE,
    "timeout": _S.DEADLINE_EXCEEDED,
    "rejected": _S.INVALID_ARGUMENT,
    "unauthenticated": _S.UNAUTHENTICATED,
    "internal": _S.INTERNAL,
    "contract": _S.INTERNAL,
}


class ForwardingServicer(_Base, pb_grpc.RetrieverServicer):
    """The Retriever service answered by an ``AsyncRetriever``, at most
    ``max_concurrency`` calls at a time."""

    def __init__(
        self, retriever: AsyncRetriever, token: str | None, max_concurrency: int = 64
    ) -> None:
        super().__init__(retriever, None, token, max_concurrency)
        self._target = retriever

    def _prepare(self, max_concurrency: int) -> None:
        self._slots = asyncio.Semaphore(max_concurrency)

    async def Retrieve(
        self, request: pb.RetrieveRequest, context: grpc.aio.ServicerContext
    ) -> pb.RetrieveResponse:
        refusal = self._refusal(context, request)
        if refusal is not None:
            await context.abort(*refusal)
        remaining = context.time_remaining()
        try:
            async with self._slots:
                ranking = await self._target.retrieve(
                    request.question, request.limit, timeout_s=remaining
                )
        except RetrieverError as e:
            await context.abort(CODE_FOR_KIND.get(e.kind, _S.INTERNAL), f"{e.kind}: {e.details}")
        return convert.ranking_to_proto(ranking)

    async def Describe(
        self, request: pb.DescribeRequest, context: grpc.aio.ServicerContext
    ) -> pb.DescribeResponse:
        refusal = self._refusal(context, None)
        if refusal is not None:
            await context.abort(*refusal)
        try:
            description = await self._target.describe(timeout_s=context.time_remaining())
        except RetrieverError as e:
            await context.abort(CODE_FOR_KIND.get(e.kind, _S.INTERNAL), f"{e.kind}: {e.details}")
        return convert.description_to_proto(description)


class ForwardingServer:
    """A started server: ``address``, ``port``; ``await stop()``."""

    def __init__(self, server: grpc.aio.Server, health_servicer: object, address: str) -> None:
        self._server = server
        self._health = health_servicer
        self.address = address
        self.port = int(address.rsplit(":", 1)[1]) if not address.startswith("unix") else 0

    async def stop(self, grace: float | None = 1.0) -> None:
        await self._health.enter_graceful_shutdown()  # type: ignore[attr-defined]
        await self._server.stop(grace)


async def serve_async(
    retriever: AsyncRetriever,
    address: str = "127.0.0.1:0",
    *,
    token: str | None = None,
    credentials: grpc.ServerCredentials | None = None,
    max_concurrency: int = 64,
) -> ForwardingServer:
    """Start serving ``retriever`` on ``address`` (port 0 picks one), health and reflection
    included; ``InfrastructureError`` when the address cannot be bound."""
    server = grpc.aio.server(options=_OPTIONS)
    health_servicer = health.aio.HealthServicer()
    _register(server, ForwardingServicer(retriever, token, max_concurrency), health_servicer)
    port = _bind(server, address, credentials)
    await server.start()
    await health_servicer.set("", _SERVING)
    await health_servicer.set(convert.SERVICE_NAME, _SERVING)
    if not address.startswith("unix"):
        address = f"{address.rsplit(':', 1)[0]}:{port}"
    log.info("serving %s on %s", retriever.target, address)
    return ForwardingServer(server, health_servicer, address)
