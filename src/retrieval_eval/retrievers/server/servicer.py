"""The servicers that turn a user's retriever object into the Retriever service.

Two flavours with the same behaviour: ``SyncServicer`` calls a plain ``retrieve`` in the
sync gRPC server's worker threads (no thread hop per call); ``AsyncServicer`` awaits an
``async def retrieve`` on the grpc.aio server's loop. Errors become status codes on
purpose: invalid requests -> INVALID_ARGUMENT, a missing or wrong token ->
UNAUTHENTICATED, an exception in user code -> INTERNAL with its message (logged here with
its traceback; the server keeps serving).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from typing import Any

import grpc

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.adapt import (
    call_describe,
    describe_of,
    make_retrieve,
    normalize_items,
)
from retrieval_eval.retrievers.auth import token_matches
from retrieval_eval.retrievers.contract.limits import request_problem
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)

_UNAUTHENTICATED = "missing or wrong bearer token (send 'authorization: Bearer <token>')"
_Refusal = tuple[grpc.StatusCode, str]


class _Base:
    def __init__(
        self,
        retriever: Any,
        describe: RetrieverDescription | None,
        token: str | None,
        max_concurrency: int,
    ) -> None:
        self._retriever = retriever
        self._description = describe
        self._token = token
        self._prepare(max_concurrency)

    def _prepare(self, max_concurrency: int) -> None:
        """What a servicer needs before its first call: its slots, and how it calls."""
        raise NotImplementedError

    def _refusal(self, context: Any, request: pb.RetrieveRequest | None) -> _Refusal | None:
        """Why this call is refused (code and message), or ``None``."""
        token = self._token
        if token is not None and not token_matches(context.invocation_metadata(), token):
            return grpc.StatusCode.UNAUTHENTICATED, _UNAUTHENTICATED
        if request is not None:
            problem = request_problem(request.question, request.limit)
            if problem is not None:
                return grpc.StatusCode.INVALID_ARGUMENT, problem
        return None


class SyncServicer(_Base, pb_grpc.RetrieverServicer):
    """Runs a sync ``retrieve`` directly in the gRPC worker thread, at most
    ``max_concurrency`` at a time."""

    def _prepare(self, max_concurrency: int) -> None:
        self._slots = threading.BoundedSemaphore(max_concurrency)

    def Retrieve(self, request: pb.RetrieveRequest, context: grpc.ServicerContext) -> Any:
        refusal = self._refusal(context, request)
        if refusal is not None:
            context.abort(*refusal)
        question, limit = request.question, request.limit
        try:
            with self._slots:
                items = normalize_items(self._retriever.retrieve(question, limit), limit)
        except Exception as e:
            log.exception("retrieve(%r, %d) failed", question[:80], limit)
            context.abort(grpc.StatusCode.INTERNAL, _error_message("retrieve", e))
        return convert.ranking_to_proto(items)

    def Describe(self, request: pb.DescribeRequest, context: grpc.ServicerContext) -> Any:
        refusal = self._refusal(context, None)
        if refusal is not None:
            context.abort(*refusal)
        if self._description is not None:
            return convert.description_to_proto(self._description)
        try:
            description = _describe_blocking(self._retriever)
        except Exception as e:
            log.exception("describe() failed")
            context.abort(grpc.StatusCode.INTERNAL, _error_message("describe", e))
        return convert.description_to_proto(description)


class AsyncServicer(_Base, pb_grpc.RetrieverServicer):
    """Awaits an async ``retrieve`` on the grpc.aio server's loop, at most
    ``max_concurrency`` at a time."""

    def _prepare(self, max_concurrency: int) -> None:
        self._retrieve = make_retrieve(self._retriever)
        self._slots = asyncio.Semaphore(max_concurrency)

    async def Retrieve(
        self, request: pb.RetrieveRequest, context: grpc.aio.ServicerContext
    ) -> pb.RetrieveResponse:
        refusal = self._refusal(context, request)
        if refusal is not None:
            await context.abort(*refusal)
        question, limit = request.question, request.limit
        try:
            async with self._slots:
                items = await self._retrieve(question, limit)
        except Exception as e:
            log.exception("retrieve(%r, %d) failed", question[:80], limit)
            await context.abort(grpc.StatusCode.INTERNAL, _error_message("retrieve", e))
        return convert.ranking_to_proto(items)

    async def Describe(
        self, request: pb.DescribeRequest, context: grpc.aio.ServicerContext
    ) -> pb.DescribeResponse:
        refusal = self._refusal(context, None)
        if refusal is not None:
            await context.abort(*refusal)
        if self._description is not None:
            return convert.description_to_proto(self._description)
        try:
            description = await call_describe(self._retriever)
        except Exception as e:
            log.exception("describe() failed")
            await context.abort(grpc.StatusCode.INTERNAL, _error_message("describe", e))
        return convert.description_to_proto(description)


def _describe_blocking(retriever: Any) -> RetrieverDescription:
    if inspect.iscoroutinefunction(getattr(retriever, "describe", None)):
        return asyncio.run(call_describe(retriever))
    return describe_of(retriever)


def _error_message(method: str, error: Exception) -> str:
    return f"{method}() raised {type(error).__name__}: {error}"
