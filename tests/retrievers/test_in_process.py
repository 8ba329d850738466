from __future__ import annotations

import asyncio

import pytest

from retrieval_eval.errors import (
    RetrieverContractError,
    RetrieverInternal,
    RetrieverRejected,
    RetrieverTimeout,
)
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.in_process import InProcessRetriever
from retrieval_eval.retrievers.protocol import RetrievedItem


class Sync:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.closed = False

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        self.calls.append((question, limit))
        return [RetrievedItem(f"d{i}", float(10 - i)) for i in range(limit)]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("sync-one", version="2")

    def close(self) -> None:
        self.closed = True


class AsyncIds:
    async def retrieve(self, question: str, limit: int) -> list[str]:
        await asyncio.sleep(0)
        return ["a", "b", "c"][:limit]

    async def close(self) -> None:
        raise OSError("already gone")


class Slow:
    async def retrieve(self, question: str, limit: int) -> list[str]:
        await asyncio.sleep(10)
        return []


class Boom:
    def retrieve(self, question: str, limit: int) -> list[str]:
        raise KeyError("shard-3")

    def describe(self) -> RetrieverDescription:
        raise RuntimeError("no metadata")


class TooMany:
    def retrieve(self, question: str, limit: int) -> list[str]:
        return [f"x{i}" for i in range(limit + 1)]


class EmptyId:
    def retrieve(self, question: str, limit: int) -> list[str]:
        return ["ok", ""]


async def test_sync_plugin_round_trip_and_close() -> None:
    obj = Sync()
    async with InProcessRetriever(obj, target="sync:x") as retriever:
        items = await retriever.retrieve("where are the cats", 3)
        description = await retriever.describe()
    assert list(items) == [
        RetrievedItem("d0", 10.0),
        RetrievedItem("d1", 9.0),
        RetrievedItem("d2", 8.0),
    ]
    assert obj.calls == [("where are the cats", 3)]
    assert description == RetrieverDescription("sync-one", version="2")
    assert obj.closed


async def test_async_plugin_with_plain_ids_and_fallback_description() -> None:
    retriever = InProcessRetriever(AsyncIds(), target="ids")
    assert list(await retriever.retrieve("q", 2)) == [RetrievedItem("a"), RetrievedItem("b")]
    assert (await retriever.describe()).identifier == "AsyncIds"
    fallback = RetrieverDescription("declared")
    assert await InProcessRetriever(AsyncIds(), target="ids", fallback=fallback).describe() == (
        fallback
    )
    await retriever.close()  # a failing close is logged, not raised


@pytest.mark.parametrize(
    ("question", "limit", "message"),
    [
        ("", 5, "question must not be empty"),
        ("   ", 5, "question must not be blank"),
        ("ok", 0, "limit must be in"),
        ("ok", 1001, "limit must be in"),
        ("é" * 9000, 5, "bytes, more than the 16384-byte maximum"),
    ],
)
async def test_invalid_requests_are_rejected_like_the_server_does(
    question: str, limit: int, message: str
) -> None:
    obj = Sync()
    retriever = InProcessRetriever(obj, target="sync:x")
    with pytest.raises(RetrieverRejected, match=message) as info:
        await retriever.retrieve(question, limit)
    assert info.value.code == "INVALID_ARGUMENT"
    assert info.value.target == "sync:x"
    assert obj.calls == []  # never reaches user code


async def test_user_code_errors_become_internal_with_the_message() -> None:
    retriever = InProcessRetriever(Boom(), target="boom")
    with pytest.raises(RetrieverInternal, match=r"retriever boom: internal.*KeyError: 'shard-3'"):
        await retriever.retrieve("q", 3)
    with pytest.raises(RetrieverInternal, match=r"describe\(\): RuntimeError: no metadata"):
        await retriever.describe()


async def test_a_description_that_cannot_key_a_run_breaks_the_contract() -> None:
    """In process as over gRPC: no identifier, or a NUL no store can hold, is a breach."""

    class Nul(Sync):
        def describe(self) -> RetrieverDescription:
            return RetrieverDescription("nul", chunking="words\x00")

    retriever = InProcessRetriever(Nul(), target="nul")
    with pytest.raises(RetrieverContractError, match="Describe chunking holds a NUL"):
        await retriever.describe()


@pytest.mark.parametrize(
    ("obj", "message"),
    [(TooMany(), "results for limit 3"), (EmptyId(), "result 2 has an empty document id")],
)
async def test_results_that_break_the_contract_are_contract_errors(
    obj: object, message: str
) -> None:
    with pytest.raises(RetrieverContractError, match=f"bad: contract: .*{message}"):
        await InProcessRetriever(obj, target="bad").retrieve("q", 3)


async def test_deadline_applies_to_in_process_calls() -> None:
    retriever = InProcessRetriever(Slow(), target="slow", timeout_s=0.05)
    with pytest.raises(RetrieverTimeout, match=r"no answer within 0\.05 s"):
        await retriever.retrieve("q", 1)
    with pytest.raises(RetrieverTimeout, match=r"within 0\.01 s"):
        await retriever.retrieve("q", 1, timeout_s=0.01)


def test_an_object_without_retrieve_is_refused() -> None:
    with pytest.raises(RetrieverInternal, match="object has no callable retrieve"):
        InProcessRetriever(object(), target="nothing")
