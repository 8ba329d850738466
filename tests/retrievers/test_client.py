"""The async client against real servers on 127.0.0.1: results, Describe, errors as our
types, deadlines, retries only on transient codes, late servers, load balancing."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from support.grpc_servers import NO_PORT_SHARING

from retrieval_eval.errors import (
    RetrieverContractError,
    RetrieverInternal,
    RetrieverRejected,
    RetrieverTimeout,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient
from retrieval_eval.retrievers.client.status import error_from_status
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import ServerHandle, serve
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

Serve = Callable[..., ServerHandle]
FAST = ClientOptions(timeout_s=5, initial_backoff_s=0.01, max_backoff_s=0.05)


class Scripted(pb_grpc.RetrieverServicer):
    """A raw servicer that fails with the scripted codes, then answers; counts calls."""

    def __init__(self, codes: list[grpc.StatusCode], results: int = 1) -> None:
        self.codes = list(codes)
        self.results = results
        self.calls = 0

    def Retrieve(self, request: pb.RetrieveRequest, context: grpc.ServicerContext) -> Any:
        self.calls += 1
        if self.codes:
            context.abort(self.codes.pop(0), f"scripted failure {self.calls}")
        items = [pb.RetrievedItem(document_id=f"d{i}") for i in range(self.results)]
        return pb.RetrieveResponse(results=items)

    def Describe(self, request: pb.DescribeRequest, context: grpc.ServicerContext) -> Any:
        self.calls += 1
        if self.codes:
            context.abort(self.codes.pop(0), f"scripted failure {self.calls}")
        return pb.DescribeResponse(identifier="" if self.results == 0 else "scripted")


@pytest.fixture
def scripted() -> Iterator[Callable[..., tuple[str, Scripted]]]:
    servers: list[grpc.Server] = []

    def start(codes: list[grpc.StatusCode], results: int = 1) -> tuple[str, Scripted]:
        servicer = Scripted(codes, results)
        server = grpc.server(futures.ThreadPoolExecutor(4), options=NO_PORT_SHARING)
        pb_grpc.add_RetrieverServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}", servicer

    yield start
    for server in servers:
        server.stop(None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_round_trip_and_describe(tiny_server: ServerHandle, tiny_retriever: Any) -> None:
    async with GrpcRetrieverClient(tiny_server.address, FAST) as client:
        got = await client.retrieve("does green tea taste bitter", 3)
        assert list(got) == tiny_retriever.retrieve("does green tea taste bitter", 3)
        assert got[0] == RetrievedItem("tea", 2.0)
        description = await client.describe()
    assert description == RetrieverDescription("tiny", version="1", corpus_revision="tiny-6")


async def test_rejection_names_target_code_and_details(tiny_server: ServerHandle) -> None:
    client = GrpcRetrieverClient(tiny_server.address, display="grpc://tiny")
    with pytest.raises(RetrieverRejected) as info:
        await client.retrieve("cats", 0)
    assert str(info.value) == (
        "retriever grpc://tiny: rejected [INVALID_ARGUMENT]: limit must be in [1, 1000], got 0"
    )
    assert (info.value.target, info.value.code) == ("grpc://tiny", "INVALID_ARGUMENT")
    await client.close()


async def test_user_code_exception_is_internal_and_the_server_still_answers(
    serve_retriever: Serve,
) -> None:
    class Flaky:
        def retrieve(self, question: str, limit: int) -> list[str]:
            if question == "boom":
                raise RuntimeError("model not loaded")
            return ["ok"]

    async with GrpcRetrieverClient(serve_retriever(Flaky()).address, FAST) as client:
        with pytest.raises(RetrieverInternal, match=r"\[INTERNAL\]: .*model not loaded"):
            await client.retrieve("boom", 3)
        assert list(await client.retrieve("fine", 3)) == [RetrievedItem("ok")]


async def test_deadline_exceeded_is_a_timeout_and_not_retried(serve_retriever: Serve) -> None:
    calls = []

    class Slow:
        async def retrieve(self, question: str, limit: int) -> list[str]:
            calls.append(question)
            await asyncio.sleep(2)
            return ["late"]

    async with GrpcRetrieverClient(serve_retriever(Slow()).address, FAST) as client:
        with pytest.raises(RetrieverTimeout, match=r"\[DEADLINE_EXCEEDED\]"):
            await client.retrieve("q", 3, timeout_s=0.2)
    assert calls == ["q"]


@pytest.mark.parametrize("code", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED])
async def test_transient_codes_are_retried(scripted: Any, code: grpc.StatusCode) -> None:
    address, servicer = scripted([code, code, code])
    async with GrpcRetrieverClient(address, FAST) as client:
        assert list(await client.retrieve("q", 3)) == [RetrievedItem("d0")]
        assert (await client.describe()).identifier == "scripted"
    assert servicer.calls == 5  # 3 failures + 1 success, then Describe


async def test_retries_stop_after_max_attempts(scripted: Any) -> None:
    address, servicer = scripted([grpc.StatusCode.UNAVAILABLE] * 10)
    async with GrpcRetrieverClient(address, FAST) as client:
        with pytest.raises(RetrieverUnavailable, match=r"scripted failure 4 \(after 4 attempts\)"):
            await client.retrieve("q", 3)
    assert servicer.calls == 4


@pytest.mark.parametrize(
    "code, error",
    [
        (grpc.StatusCode.INVALID_ARGUMENT, RetrieverRejected),
        (grpc.StatusCode.UNAUTHENTICATED, RetrieverUnauthenticated),
        (grpc.StatusCode.INTERNAL, RetrieverInternal),
        (grpc.StatusCode.UNIMPLEMENTED, RetrieverRejected),
    ],
)
async def test_other_codes_are_not_retried(
    scripted: Any, code: grpc.StatusCode, error: type[Exception]
) -> None:
    address, servicer = scripted([code])
    async with GrpcRetrieverClient(address, FAST) as client:
        with pytest.raises(error, match=f"\\[{code.name}\\]: scripted failure 1$"):
            await client.retrieve("q", 3)
    assert servicer.calls == 1


async def test_contract_violations_in_responses(scripted: Any) -> None:
    address, _ = scripted([], results=5)
    async with GrpcRetrieverClient(address, FAST) as client:
        with pytest.raises(RetrieverContractError, match="contract: 5 results for limit 3"):
            await client.retrieve("q", 3)
    address, _ = scripted([], results=0)
    async with GrpcRetrieverClient(address, FAST) as client:
        with pytest.raises(
            RetrieverContractError, match="contract: Describe answered with an empty"
        ):
            await client.describe()


async def test_a_server_that_starts_late_is_reached_by_retrying(tiny_retriever: Any) -> None:
    port = free_port()
    handles: list[ServerHandle] = []
    timer = threading.Timer(0.4, lambda: handles.append(serve(tiny_retriever, f"127.0.0.1:{port}")))
    options = ClientOptions(timeout_s=5, max_attempts=12, initial_backoff_s=0.05, max_backoff_s=0.3)
    started = time.monotonic()
    timer.start()
    try:
        async with GrpcRetrieverClient(f"127.0.0.1:{port}", options) as client:
            assert [i.document_id for i in await client.retrieve("cats", 3)] == ["cats"]
        assert time.monotonic() - started >= 0.4
    finally:
        timer.join()
        for handle in handles:
            handle.stop(None)


async def test_nobody_listening_is_unavailable_naming_the_target() -> None:
    target = f"127.0.0.1:{free_port()}"
    client = GrpcRetrieverClient(target, FAST, display=f"grpc://{target}")
    with pytest.raises(RetrieverUnavailable, match=f"retriever grpc://{target}: unavailable"):
        await client.retrieve("q", 3)
    await client.close()


async def test_health(tiny_server: ServerHandle) -> None:
    async with GrpcRetrieverClient(tiny_server.address) as client:
        assert await client.health() == "SERVING"
        assert await client.health("retrieval_eval.v1.Retriever") == "SERVING"
        assert await client.health("no.such.Service") == "SERVICE_UNKNOWN"


async def test_round_robin_spreads_calls_over_replicas(
    serve_retriever: Serve, tiny_retriever: Any
) -> None:
    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

        def retrieve(self, question: str, limit: int) -> list[str]:
            return [self.name]

    ports = [serve_retriever(Named(name)).port for name in ("a", "b")]
    target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for port in ports)
    async with GrpcRetrieverClient(target, FAST) as client:

        async def who() -> str:
            return (await client.retrieve("q", 1))[0].document_id

        deadline = time.monotonic() + 10
        while {await who() for _ in range(4)} != {"a", "b"}:  # both replicas connected
            assert time.monotonic() < deadline, "round_robin never reached both replicas"
        seen = [await who() for _ in range(20)]
    assert min(seen.count("a"), seen.count("b")) >= 5, seen
    # Without the policy gRPC picks the first address that connects and stays there.
    pick_first = ClientOptions(timeout_s=5, load_balancing="pick_first")
    async with GrpcRetrieverClient(target, pick_first) as client:
        assert len({(await client.retrieve("q", 1))[0].document_id for _ in range(20)}) == 1


def test_one_client_across_event_loops(tiny_server: ServerHandle) -> None:
    client = GrpcRetrieverClient(tiny_server.address, FAST)
    for _ in range(2):
        assert asyncio.run(client.retrieve("dogs", 1))[0].document_id == "dogs"
    asyncio.run(client.close())


@pytest.mark.parametrize(
    "code, error",
    [
        ("UNAVAILABLE", RetrieverUnavailable),
        ("DEADLINE_EXCEEDED", RetrieverTimeout),
        ("INVALID_ARGUMENT", RetrieverRejected),
        ("OUT_OF_RANGE", RetrieverRejected),
        ("FAILED_PRECONDITION", RetrieverRejected),
        ("NOT_FOUND", RetrieverRejected),
        ("UNIMPLEMENTED", RetrieverRejected),
        ("UNAUTHENTICATED", RetrieverUnauthenticated),
        ("PERMISSION_DENIED", RetrieverUnauthenticated),
        ("INTERNAL", RetrieverInternal),
        ("UNKNOWN", RetrieverInternal),
        ("RESOURCE_EXHAUSTED", RetrieverInternal),
        ("DATA_LOSS", RetrieverInternal),
    ],
)
def test_status_code_mapping(code: str, error: type[Exception]) -> None:
    mapped = error_from_status("grpc://x", grpc.StatusCode[code], "why")
    assert type(mapped) is error
    assert str(mapped) == f"retriever grpc://x: {mapped.kind} [{code}]: why"


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="max_attempts must be >= 1, got 0"):
        GrpcRetrieverClient("127.0.0.1:1", ClientOptions(max_attempts=0))


async def test_the_deadline_covers_the_retries_and_the_last_failure_is_reported(
    scripted: Any,
) -> None:
    address, servicer = scripted([grpc.StatusCode.UNAVAILABLE] * 1000)
    options = ClientOptions(
        timeout_s=0.5, max_attempts=1000, initial_backoff_s=0.05, max_backoff_s=0.1
    )
    async with GrpcRetrieverClient(address, options) as client:
        with pytest.raises(RetrieverUnavailable, match=r"\(after \d+ attempts\)$"):
            await client.retrieve("q", 3)
    # Every wait is at least 0.025 s (half the first backoff) and no wait passes the
    # 0.5 s deadline: at most 20 waits, so at most 21 attempts of the 1000 allowed.
    assert 2 <= servicer.calls <= 21
