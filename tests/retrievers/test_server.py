"""The server SDK through real channels: results, Describe, validation, user errors,
concurrency bounds, health and reflection. Probed with the raw generated stub so that
these tests do not depend on our client."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from retrieval_eval.errors import InfrastructureError
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import ServerHandle, serve
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

Serve = Callable[..., ServerHandle]


class AsyncWrapper:
    """The same retriever with an ``async def retrieve``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        await asyncio.sleep(0)
        return self.inner.retrieve(question, limit)

    def describe(self) -> RetrieverDescription:
        return self.inner.describe()


def flavour(kind: str, retriever: Any) -> Any:
    return AsyncWrapper(retriever) if kind == "async" else retriever


KINDS = pytest.mark.parametrize("kind", ["sync", "async"])


async def call(address: str, question: str, limit: int) -> pb.RetrieveResponse:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.RetrieverStub(channel)
        return await stub.Retrieve(pb.RetrieveRequest(question=question, limit=limit), timeout=5)


async def describe(address: str) -> pb.DescribeResponse:
    async with grpc.aio.insecure_channel(address) as channel:
        return await pb_grpc.RetrieverStub(channel).Describe(pb.DescribeRequest(), timeout=5)


async def rpc_error(address: str, question: str, limit: int) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call(address, question, limit)
    return info.value


@KINDS
async def test_round_trip_matches_the_retriever(
    serve_retriever: Serve, tiny_retriever: Any, kind: str
) -> None:
    handle = serve_retriever(flavour(kind, tiny_retriever))
    assert handle.address == f"127.0.0.1:{handle.port}" and handle.port > 0
    response = await call(handle.address, "how is green tea or coffee brewed", 2)
    got = [(r.document_id, r.score) for r in response.results]
    expected = tiny_retriever.retrieve("how is green tea or coffee brewed", 2)
    assert got == [(i.document_id, i.score) for i in expected]
    assert [d for d, _ in got] == ["tea", "coffee"]


async def test_plain_string_ids_and_chunk_ids(serve_retriever: Serve) -> None:
    class Ids:
        def retrieve(self, question: str, limit: int) -> list[object]:
            return ["a", RetrievedItem("b#1", chunk_id="b#1")][:limit]

    response = await call(serve_retriever(Ids()).address, "q", 5)
    assert [(r.document_id, r.HasField("score"), r.chunk_id) for r in response.results] == [
        ("a", False, ""),
        ("b#1", False, "b#1"),
    ]


async def test_describe_from_the_object_the_override_and_the_class_name(
    serve_retriever: Serve, tiny_retriever: Any
) -> None:
    tiny_retriever.identifier = "tiny-x"
    tiny = await describe(serve_retriever(AsyncWrapper(tiny_retriever)).address)
    assert (tiny.identifier, tiny.version, tiny.provenance.corpus_revision) == (
        "tiny-x",
        "1",
        "tiny-6",
    )
    given = RetrieverDescription("given", chunk_separator="#", metadata={"k": "v"})
    override = await describe(serve_retriever(tiny_retriever, describe=given).address)
    assert (override.identifier, override.chunk_separator, dict(override.metadata)) == (
        "given",
        "#",
        {"k": "v"},
    )

    class Bare:
        async def retrieve(self, question: str, limit: int) -> list[str]:
            return []

    assert (await describe(serve_retriever(Bare()).address)).identifier == "Bare"


@KINDS
@pytest.mark.parametrize(
    "question, limit, fragment",
    [
        ("", 3, "empty"),
        ("   \n", 3, "question must not be blank (only white space)"),
        ("cats", 0, "limit must be in [1, 1000], got 0"),
        ("cats", 1001, "got 1001"),
        ("é" * 8193, 3, "16386 bytes"),
    ],
    ids=["empty", "blank", "limit0", "limit1001", "oversized"],
)
async def test_invalid_requests_are_rejected(
    serve_retriever: Serve,
    tiny_retriever: Any,
    kind: str,
    question: str,
    limit: int,
    fragment: str,
) -> None:
    error = await rpc_error(serve_retriever(flavour(kind, tiny_retriever)).address, question, limit)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fragment in error.details()


async def test_limits_at_the_boundaries_are_accepted(tiny_server: ServerHandle) -> None:
    assert len((await call(tiny_server.address, "cats dogs", 1000)).results) == 2
    assert len((await call(tiny_server.address, "cats " + "é" * 8189, 1)).results) == 1


class Fails:
    def __init__(self) -> None:
        self.calls = 0

    def retrieve(self, question: str, limit: int) -> list[str]:
        self.calls += 1
        if question == "boom":
            raise KeyError("index shard 3 missing")
        if question == "many":
            return ["x"] * (limit + 1)
        if question == "wrong":
            return [42]  # type: ignore[list-item]
        return ["ok"]


@pytest.mark.parametrize(
    "question, fragment",
    [
        ("boom", "retrieve() raised KeyError: 'index shard 3 missing'"),
        ("many", "breaks the contract: 4 results for limit 3"),
        ("wrong", "result 0 is int"),
    ],
)
async def test_user_code_failure_is_internal_and_the_server_keeps_serving(
    serve_retriever: Serve, question: str, fragment: str, caplog: pytest.LogCaptureFixture
) -> None:
    fails = Fails()
    handle = serve_retriever(fails)
    error = await rpc_error(handle.address, question, 3)
    assert error.code() == grpc.StatusCode.INTERNAL
    assert fragment in error.details()
    assert [r.document_id for r in (await call(handle.address, "fine", 3)).results] == ["ok"]
    assert fails.calls == 2
    logged = [r for r in caplog.records if r.name == "retrieval_eval.retrievers.server.servicer"]
    assert len(logged) == 1 and logged[0].exc_info is not None  # the traceback stays server-side


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
async def test_max_concurrency_bounds_calls_into_user_code(
    serve_retriever: Serve, is_async: bool
) -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def enter() -> None:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])

    def leave() -> None:
        with lock:
            state["now"] -= 1

    class SlowSync:
        def retrieve(self, question: str, limit: int) -> list[str]:
            enter()
            time.sleep(0.1)
            leave()
            return ["x"]

    class SlowAsync:
        async def retrieve(self, question: str, limit: int) -> list[str]:
            enter()
            await asyncio.sleep(0.1)
            leave()
            return ["x"]

    handle = serve_retriever(SlowAsync() if is_async else SlowSync(), max_concurrency=2)
    async with grpc.aio.insecure_channel(handle.address) as channel:
        stub = pb_grpc.RetrieverStub(channel)
        request = pb.RetrieveRequest(question="q", limit=1)
        await asyncio.gather(*(stub.Retrieve(request, timeout=10) for _ in range(6)))
    assert state["peak"] == 2


@KINDS
async def test_health_serving_and_reflection_lists_the_service(
    serve_retriever: Serve, tiny_retriever: Any, kind: str
) -> None:
    handle = serve_retriever(flavour(kind, tiny_retriever))
    async with grpc.aio.insecure_channel(handle.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "retrieval_eval.v1.Retriever"):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
    with grpc.insecure_channel(handle.address) as sync_channel:
        services = ProtoReflectionDescriptorDatabase(sync_channel).get_services()
    assert "retrieval_eval.v1.Retriever" in services
    assert "grpc.health.v1.Health" in services


@KINDS
def test_busy_port_is_an_error_naming_the_address(
    tiny_server: ServerHandle, tiny_retriever: Any, kind: str
) -> None:
    with pytest.raises(InfrastructureError, match=f"cannot listen on {tiny_server.address}"):
        serve(flavour(kind, tiny_retriever), tiny_server.address)


def test_not_a_retriever_is_refused() -> None:
    with pytest.raises(TypeError, match="object has no callable retrieve"):
        serve(object())


@KINDS
def test_stop_frees_the_port_and_is_idempotent(tiny_retriever: Any, kind: str) -> None:
    with serve(flavour(kind, tiny_retriever)) as handle:
        port = handle.port
    handle.stop()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    again = serve(flavour(kind, tiny_retriever), f"127.0.0.1:{port}")  # the port is free again
    again.stop()


def test_wait_returns_once_stopped_from_another_thread(tiny_server: ServerHandle) -> None:
    waiter = threading.Thread(target=tiny_server.wait, daemon=True)
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive()  # wait() blocks while the server runs
    stopper = threading.Timer(0.1, tiny_server.stop)
    stopper.start()
    waiter.join(10)  # a bound, so that a wait() that never returns fails instead of hanging
    stopper.join(10)
    assert not waiter.is_alive()
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", tiny_server.port)) != 0


@KINDS
async def test_unix_socket_address(
    serve_retriever: Serve, tiny_retriever: Any, kind: str, tmp_path: Path
) -> None:
    address = f"unix:{tmp_path / 'retriever.sock'}"
    handle = serve_retriever(flavour(kind, tiny_retriever), address)
    assert (handle.address, handle.port) == (address, 0)
    assert [r.document_id for r in (await call(address, "dogs bark", 3)).results] == ["dogs"]


async def test_async_describe_on_a_sync_retriever(serve_retriever: Serve) -> None:
    class Mixed:
        def retrieve(self, question: str, limit: int) -> list[str]:
            return ["x"]

        async def describe(self) -> RetrieverDescription:
            return RetrieverDescription("mixed", version="7")

    reply = await describe(serve_retriever(Mixed()).address)
    assert (reply.identifier, reply.version) == ("mixed", "7")


async def test_failing_describe_is_internal(serve_retriever: Serve) -> None:
    class BadDescribe:
        def retrieve(self, question: str, limit: int) -> list[str]:
            return ["x"]

        def describe(self) -> RetrieverDescription:
            raise OSError("manifest unreadable")

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await describe(serve_retriever(BadDescribe()).address)
    assert info.value.code() == grpc.StatusCode.INTERNAL
    assert info.value.details() == "describe() raised OSError: manifest unreadable"


def test_bad_settings_are_refused(tiny_retriever: Any) -> None:
    with pytest.raises(ValueError, match="max_concurrency must be >= 1, got 0"):
        serve(tiny_retriever, max_concurrency=0)
