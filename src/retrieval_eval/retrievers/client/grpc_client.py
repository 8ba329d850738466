"""The async gRPC retriever client: deadlines, retries on transient codes, TLS, a bearer
token, and grpc errors turned into our own ``RetrieverError`` types.

Retries follow reval's one policy (``backoff``): transient codes only, exponential backoff
with jitter, and the call's deadline covering every attempt (each retry gets what is left).

The channel is opened on first use, inside the running event loop (grpc.aio channels are
bound to their loop), and reopened if the client is later used from another loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc

from retrieval_eval.errors import RetrieverContractError, RetrieverRejected
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.auth import bearer_metadata
from retrieval_eval.retrievers.backoff import Backoff, GaveUp, Verdict, retrying
from retrieval_eval.retrievers.client.channel import TlsConfig, channel_options, open_channel
from retrieval_eval.retrievers.client.status import error_from_rpc, retryable
from retrieval_eval.retrievers.client.wire import plain_ids
from retrieval_eval.retrievers.contract.limits import (
    MAX_QUESTION_BYTES,
    description_breach,
    question_bytes,
    response_breach,
)
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

__all__ = ["ClientOptions", "GrpcRetrieverClient", "TlsConfig"]

T = TypeVar("T")
_DESCRIBE = pb.DescribeRequest()
_RETRIEVE = f"/{convert.SERVICE_NAME}/Retrieve"  # the generated stub's method path
_PARSE = pb.RetrieveResponse.FromString


@dataclass(frozen=True, slots=True)
class ClientOptions:
    """``timeout_s`` is the deadline of each call, its retries included; ``max_attempts``
    counts the first attempt; backoff doubles from ``initial_backoff_s`` up to
    ``max_backoff_s``, jittered (``backoff.Backoff``)."""

    timeout_s: float = 10.0
    max_attempts: int = 4
    initial_backoff_s: float = 0.05
    max_backoff_s: float = 2.0
    token: str | None = None
    tls: TlsConfig | None = None
    load_balancing: str = "round_robin"


class GrpcRetrieverClient:
    """An ``AsyncRetriever`` backed by a remote Retriever service."""

    #: Every ranking ``retrieve`` returns has passed the contract check for its limit.
    checks_answers = True

    def __init__(
        self,
        channel_target: str,
        options: ClientOptions = ClientOptions(),  # frozen, safe to share
        *,
        display: str | None = None,
    ) -> None:
        if options.max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {options.max_attempts}")
        self.channel_target = channel_target
        self.target = display or channel_target
        self.options = options
        self._metadata = bearer_metadata(options.token) if options.token is not None else None
        self._channel: grpc.aio.Channel | None = None
        self._stub: pb_grpc.RetrieverStub | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._retrieve_wire: grpc.aio.UnaryUnaryMultiCallable[pb.RetrieveRequest, bytes]
        self._backoff = Backoff(
            options.max_attempts, options.initial_backoff_s, options.max_backoff_s
        )
        self._channel_options = channel_options(options.load_balancing, self._backoff, options.tls)

    @property
    def configured_timeout_s(self) -> float:
        """The deadline of each call this client was opened with (e.g. from reval.toml)."""
        return self.options.timeout_s

    @property
    def stub(self) -> pb_grpc.RetrieverStub:
        """The raw generated stub on this client's channel (for contract probes)."""
        if self._stub is None or self._loop is not asyncio.get_running_loop():
            self._open()
        assert self._stub is not None
        return self._stub

    @property
    def channel(self) -> grpc.aio.Channel:
        self.stub  # noqa: B018 - opens the channel if needed
        assert self._channel is not None
        return self._channel

    @property
    def metadata(self) -> tuple[tuple[str, str], ...] | None:
        """The call metadata every call sends (the bearer token, if any)."""
        return self._metadata

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        """Ranked results; raises a ``RetrieverError`` subclass when the call fails.
        A question over the contract's size limit is refused here, never sent (a 100 MB
        question would cross the wire only to be refused by the server)."""
        if len(question) * 4 > MAX_QUESTION_BYTES and question_bytes(question) > MAX_QUESTION_BYTES:
            raise RetrieverRejected(
                self.target,
                f"not sent: the question is {question_bytes(question)} bytes, more than the "
                f"{MAX_QUESTION_BYTES}-byte maximum of the retriever contract",
            )
        request = pb.RetrieveRequest(question=question, limit=limit)
        timeout = self.options.timeout_s if timeout_s is None else timeout_s
        if self._loop is not asyncio.get_running_loop() or self._stub is None:
            self._open()
        call = self._retrieve_wire
        started = time.monotonic()
        try:  # the first attempt inline: the hot path
            data = await call(request, timeout=timeout, metadata=self._metadata)
        except grpc.aio.AioRpcError as e:
            deadline = started + timeout
            data = await self._retry(
                e,
                lambda: call(request, timeout=_left(deadline), metadata=self._metadata),
                deadline,
            )
        ids = plain_ids(data, limit) if type(data) is bytes else None
        if ids is not None:  # the usual answer, conforming on sight
            return Ranking(ids)
        ranking = self._ranking(data, limit)
        breach = response_breach(ranking, limit)
        if breach is not None:
            raise RetrieverContractError(self.target, breach)
        return ranking

    def _ranking(self, data: object, limit: int) -> Ranking:
        """The columns of an answer other than plain ids, parsed by protobuf's own parser
        from the bytes received (whose length still tells an answer of ids only, e.g.
        non-ASCII ones, without reading more fields)."""
        try:
            response = _PARSE(data)  # type: ignore[arg-type]
        except (DecodeError, TypeError):
            response = None
        if not isinstance(response, pb.RetrieveResponse):
            raise RetrieverContractError(
                self.target, "unparsable response (not a RetrieveResponse)"
            )
        if len(response.results) > limit:  # before converting what may be a huge list
            raise RetrieverContractError(
                self.target, f"{len(response.results)} results for limit {limit}"
            )
        return convert.ranking_from_proto(response, len(data))  # type: ignore[arg-type]

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        """What the retriever says it is; ``RetrieverContractError`` when that cannot key
        a run (no identifier, a NUL character)."""
        timeout = self.options.timeout_s if timeout_s is None else timeout_s
        call = self.stub.Describe
        deadline = time.monotonic() + timeout
        response = await self._call(
            lambda: call(_DESCRIBE, timeout=_left(deadline), metadata=self._metadata), deadline
        )
        description = convert.description_from_proto(response)
        breach = description_breach(description)
        if breach is not None:
            raise RetrieverContractError(self.target, breach)
        return description

    async def health(self, service: str = "") -> str:
        """The standard health status name: SERVING, NOT_SERVING or SERVICE_UNKNOWN."""
        stub = health_pb2_grpc.HealthStub(self.channel)
        request = health_pb2.HealthCheckRequest(service=service)
        try:
            response = await stub.Check(request, timeout=self.options.timeout_s)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return "SERVICE_UNKNOWN"
            raise error_from_rpc(self.target, e, " (health check)") from e
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))

    async def close(self) -> None:
        channel, self._channel, self._stub = self._channel, None, None
        if channel is not None and self._loop is asyncio.get_running_loop():
            await channel.close()

    async def __aenter__(self) -> GrpcRetrieverClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"GrpcRetrieverClient({self.target!r})"

    def _open(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._channel = open_channel(self.channel_target, self._channel_options, self.options.tls)
        self._stub = pb_grpc.RetrieverStub(self._channel)
        # Retrieve answers as the bytes received, read here: the usual answer (plain ids)
        # straight from them, anything else by protobuf's parser.
        self._retrieve_wire = self._channel.unary_unary(
            _RETRIEVE, request_serializer=pb.RetrieveRequest.SerializeToString
        )

    async def _call(self, attempt: Callable[[], Awaitable[T]], deadline: float) -> T:
        try:
            return await attempt()
        except grpc.aio.AioRpcError as e:
            return await self._retry(e, attempt, deadline)

    async def _retry(
        self, error: grpc.aio.AioRpcError, attempt: Callable[[], Awaitable[T]], deadline: float
    ) -> T:
        """Retry after ``error`` (the first attempt's) while the code is transient and the
        attempts and the deadline allow."""
        try:
            return await retrying(
                attempt, self._backoff, _verdict, first=error, deadline=deadline, label=self.target
            )
        except GaveUp as e:
            failure = e.error
            assert isinstance(failure, grpc.aio.AioRpcError)
            note = e.note if e.transient else ""
            raise error_from_rpc(self.target, failure, note) from failure


def _verdict(error: Exception) -> Verdict | None:
    """The retry policy's view of a failed call: only gRPC's own errors are judged."""
    if not isinstance(error, grpc.aio.AioRpcError):
        return None
    return Verdict(retryable(error), reason=error.code().name)


def _left(deadline: float) -> float:
    """What remains of the call's deadline for one more attempt (never below a millisecond:
    gRPC refuses a deadline already past)."""
    return max(0.001, deadline - time.monotonic())
