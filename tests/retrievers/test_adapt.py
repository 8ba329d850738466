"""Sync and async user retrievers are called alike, and their results are checked."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.adapt import call_describe, describe_of, make_retrieve
from retrieval_eval.retrievers.contract.limits import ContractBreach
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem


class Sync:
    def __init__(self, result: Any) -> None:
        self.result = result
        self.threads: list[str] = []

    def retrieve(self, question: str, limit: int) -> Any:
        self.threads.append(threading.current_thread().name)
        return self.result


class Async:
    def __init__(self, result: Any) -> None:
        self.result = result

    async def retrieve(self, question: str, limit: int) -> Any:
        return self.result


@pytest.mark.parametrize("cls", [Sync, Async])
async def test_records_and_plain_ids_are_accepted(cls: type) -> None:
    got = await make_retrieve(cls(["a", RetrievedItem("b", 0.5)]))("q", 2)
    assert list(got) == [RetrievedItem("a"), RetrievedItem("b", 0.5)]


async def test_sync_code_runs_off_the_event_loop_thread() -> None:
    retriever = Sync(["a"])
    await make_retrieve(retriever)("q", 1)
    assert retriever.threads and retriever.threads[0] != threading.current_thread().name


async def test_sync_code_does_not_block_the_loop() -> None:
    class Blocking:
        def retrieve(self, question: str, limit: int) -> list[str]:
            release.wait(5)
            return ["done"]

    release = threading.Event()
    task = asyncio.create_task(make_retrieve(Blocking())("q", 1))
    await asyncio.sleep(0.05)  # the loop still runs while retrieve blocks
    release.set()
    assert list(await task) == [RetrievedItem("done")]


@pytest.mark.parametrize(
    "result, error, fragment",
    [
        ("abc", TypeError, "got str"),
        (None, TypeError, "got NoneType"),
        ([1], TypeError, "result 0 is int"),
        (["a", ""], ValueError, "result 2 has an empty document id"),
        (["a", " "], ValueError, r"result 2 has a blank document id \(' ', only white space\)"),
        (["a", "x" * 5000], ValueError, "result 2 has a document id of 5,000 bytes"),
        (["a", "b", "c"], ValueError, "3 results for limit 2"),
    ],
)
@pytest.mark.parametrize("cls", [Sync, Async])
async def test_bad_results_are_refused(
    cls: type, result: Any, error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        await make_retrieve(cls(result))("q", 2)


@pytest.mark.parametrize("cls", [Sync, Async])
async def test_a_ranking_is_taken_as_it_is(cls: type) -> None:
    ranking = Ranking(("d1#0", "d2"), (2.0, 1.0), ("d1#0", None))
    got = await make_retrieve(cls(ranking))("q", 2)
    assert got is ranking
    assert list(got) == [RetrievedItem("d1#0", 2.0, "d1#0"), RetrievedItem("d2", 1.0)]
    # lists and integer scores are accepted, as tuples of floats
    loose = await make_retrieve(cls(Ranking(["a"], [3], [])))("q", 1)  # type: ignore[arg-type]
    assert loose == Ranking(("a",), (3.0,)) and type(loose.scores[0]) is float


@pytest.mark.parametrize(
    "ranking, error, fragment",
    [
        (Ranking(("a", "")), ValueError, "result 2 has an empty document id"),
        (Ranking(("a", "\t ")), ValueError, "result 2 has a blank document id"),
        (Ranking(("a", "x" * 5000)), ValueError, "result 2 has a document id of 5,000 bytes"),
        (Ranking(("a", "é" * 2049)), ValueError, "result 2 has a document id of 4,098 bytes"),
        (Ranking(("a", "b"), (), ("a", "c" * 5000)), ValueError, "result 2 has a chunk id of"),
        # the first breach by rank wins, a result's id before its chunk id
        (Ranking(("a", ""), (), ("c" * 5000, None)), ValueError, "result 1 has a chunk id"),
        (Ranking(("a", ""), (), (None, "c" * 5000)), ValueError, "result 2 has an empty doc"),
        (Ranking(("a", "b", "c")), ValueError, "3 results for limit 2"),
        (Ranking((1, "b")), TypeError, "result 0: document id 1 is not a str"),  # type: ignore[arg-type]
        (Ranking(("a", "b"), (1.0,)), TypeError, "1 scores for 2 document ids"),
        (Ranking(("a",), (), ("a", "b")), TypeError, "2 chunk_ids for 1 document ids"),
        (Ranking(("a",), ("high",)), TypeError, "score 'high' is not a number"),  # type: ignore[arg-type]
        (Ranking(("a",), (True,)), TypeError, "score True is not a number"),
        (Ranking(("a",), (), (7,)), TypeError, "chunk id 7 is not a str"),  # type: ignore[arg-type]
    ],
)
@pytest.mark.parametrize("cls", [Sync, Async])
async def test_bad_rankings_are_refused(
    cls: type, ranking: Ranking, error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        await make_retrieve(cls(ranking))("q", 2)


async def test_describe_variants() -> None:
    class Described:
        def describe(self) -> RetrieverDescription:
            return RetrieverDescription("d", version="2")

    class Named:
        def describe(self) -> str:
            return "named"

    class AsyncDescribed:
        async def describe(self) -> RetrieverDescription:
            return RetrieverDescription("async-d")

    fallback = RetrieverDescription("fallback")
    assert describe_of(Described(), fallback) == RetrieverDescription("d", version="2")
    assert describe_of(Named()).identifier == "named"
    assert describe_of(Sync([])).identifier == "Sync"
    assert describe_of(Sync([]), fallback) is fallback
    assert (await call_describe(AsyncDescribed())).identifier == "async-d"
    with pytest.raises(TypeError, match="use call_describe"):
        describe_of(AsyncDescribed())


async def test_bad_descriptions_are_refused() -> None:
    class Empty:
        def describe(self) -> str:
            return ""

    class Wrong:
        def describe(self) -> int:
            return 3

    class Nul:
        def describe(self) -> RetrieverDescription:
            return RetrieverDescription(identifier="x", version="1\x00")

    with pytest.raises(ContractBreach, match=r"Empty.describe\(\): .* empty identifier"):
        describe_of(Empty())
    with pytest.raises(ContractBreach, match=r"Nul.describe\(\): Describe version holds a NUL"):
        describe_of(Nul())
    with pytest.raises(TypeError, match=r"Wrong.describe\(\) returned int"):
        describe_of(Wrong())
