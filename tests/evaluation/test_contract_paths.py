"""An answer that breaks the contract is a contract error on every path into a run: from
a source that judges its answers itself (the in-process adapter; the gRPC client in
tests/retrievers/test_contract_breaches.py) and from one that does not (an
``AsyncRetriever`` written here), whose answers scoring judges."""

from __future__ import annotations

import pytest

from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.failures import FailureKind
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.in_process import InProcessRetriever
from retrieval_eval.retrievers.protocol import Ranking

QS = GoldenQuestionSet(
    "paths",
    (
        GoldenQuestion("good", "a good answer", Form.MATCH, ("d1",)),
        GoldenQuestion("empty-id", "an empty id", Form.MATCH, ("d1",)),
        GoldenQuestion("too-many", "too many ids", Form.MATCH, ("d1",)),
    ),
)
ANSWERS = {
    "a good answer": ("d1", "d2"),
    "an empty id": ("d1", ""),
    "too many ids": tuple(f"d{i}" for i in range(13)),  # the limit is 12
}
BREACHES = {"empty-id": "result 2 has an empty document id", "too-many": "13 results for limit 12"}


class Plugin:
    """A user's plain object: the in-process adapter judges its answers."""

    async def retrieve(self, question: str, limit: int) -> Ranking:
        return Ranking(ANSWERS[question])


class Unchecking:
    """An ``AsyncRetriever`` of its own that judges nothing (no ``checks_answers``)."""

    target = "unchecking"
    configured_timeout_s = None

    async def retrieve(self, question: str, limit: int, *, timeout_s=None) -> Ranking:
        return Ranking(ANSWERS[question])

    async def describe(self, *, timeout_s=None) -> RetrieverDescription:
        return RetrieverDescription("unchecking")

    async def close(self) -> None:
        pass


@pytest.mark.parametrize(
    "retriever",
    [InProcessRetriever(Plugin(), target="plugin"), Plugin(), Unchecking()],
    ids=["in-process adapter", "plain object", "unchecking AsyncRetriever"],
)
async def test_a_breach_is_a_contract_error_never_a_miss_on_every_path(retriever) -> None:
    run = await evaluate_set(QS, retriever, EvalOptions(timeout_s=5))
    good, *breaching = run.questions
    assert good.error is None and good.hits[1]
    for outcome in breaching:
        assert outcome.error is not None and outcome.error.kind == FailureKind.CONTRACT
        assert BREACHES[outcome.question_id] in outcome.error.message
        assert outcome.hits == {} and outcome.raw_ids == ()
    assert run.metrics.count == 1 and run.error_count == 2
