"""``latency_probe``: questions re-asked one at a time after the run, so that latency is
reported without the queueing that the run's own concurrency adds."""

from __future__ import annotations

import asyncio

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.evaluation.probe import probe_indexes
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem

SERVICE_S = 0.01


class OneAtATime:
    """Serves one call at a time (``SERVICE_S`` each): calls in flight queue up."""

    target = "serial"

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.asked: list[str] = []

    async def describe(self) -> RetrieverDescription:
        return RetrieverDescription("serial", "1")

    async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        async with self.lock:
            await asyncio.sleep(SERVICE_S)
        self.asked.append(question)
        return [RetrievedItem(f"doc{question.rsplit(' ', 1)[-1]}")]

    async def close(self) -> None:
        pass


def numbered(n: int) -> GoldenQuestionSet:
    return GoldenQuestionSet(
        "numbered",
        tuple(GoldenQuestion(f"q{i}", f"question {i}", Form.MATCH, (f"doc{i}",)) for i in range(n)),
    )


@pytest.mark.parametrize(("total", "n", "expected"), [
    (10, 3, [0, 3, 6]), (4, 10, [0, 1, 2, 3]), (5, 0, []), (1, 1, [0]),
])  # fmt: skip
def test_probe_indexes_spread_over_the_set(total, n, expected):
    assert probe_indexes(total, n) == expected


async def test_the_probe_measures_latency_without_the_queueing_of_the_run():
    retriever = OneAtATime()
    run = await evaluate_set(numbered(40), retriever, EvalOptions(concurrency=8, latency_probe=5))
    assert len(run.questions) == 40 and run.complete
    assert run.metrics.values["top1_hit_rate"] == 1.0
    # the 40 questions once each, then 5 of them again, spread over the set, in order
    assert retriever.asked[40:] == [f"question {i}" for i in (0, 8, 16, 24, 32)]
    assert len(retriever.asked) == 45
    loaded, unloaded = run.latency, run.latency_probe
    assert loaded is not None and unloaded is not None and unloaded.count == 5
    # 8 in flight on a one-at-a-time server: each call waits for about 7 others
    assert loaded.p50_ms > 4 * SERVICE_S * 1000
    assert unloaded.p50_ms < 3 * SERVICE_S * 1000 < loaded.p50_ms


async def test_no_probe_by_default_and_a_negative_probe_is_bad_input():
    run = await evaluate_set(numbered(3), OneAtATime())
    assert run.latency_probe is None
    with pytest.raises(InputError, match="--latency-probe -1"):
        await evaluate_set(numbered(3), OneAtATime(), EvalOptions(latency_probe=-1))
