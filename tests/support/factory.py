"""Build real RunResults for store and regression tests: real questions, real scoring
(the engine's protocol and metrics), with each question's outcome given as a one-letter code.

Codes: "1" top-1 hit, "3" hit at 3 but not at 1, "0" miss, "E" failed retrieval,
"-" not measured (interrupted run). Question ``qN`` expects document ``dN``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta

from retrieval_eval.evaluation.latency import run_latency
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records import (
    FailureKind,
    Form,
    RetrievalFailure,
    RetrieverDescription,
    RunParameters,
    RunResult,
    RunState,
)
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.scoring.metrics import breakdowns, summarize
from retrieval_eval.scoring.protocol import score_question

T0 = datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC)


def question_set(
    n: int,
    *,
    name: str = "faq",
    forms: Sequence[Form] | None = None,
    classes: Sequence[str | None] | None = None,
    no_answer: Sequence[int] = (),
) -> GoldenQuestionSet:
    questions = tuple(
        GoldenQuestion(
            id=f"q{i}",
            question=f"question number {i}?",
            form=forms[i] if forms else (Form.MATCH if i % 2 == 0 else Form.GAP),
            expected_document_ids=() if i in no_answer else (f"d{i}",),
            hard_class=classes[i] if classes else None,
        )
        for i in range(n)
    )
    return GoldenQuestionSet(name=name, questions=questions)


def _ranking(i: int, code: str, expects_nothing: bool) -> list[RetrievedItem]:
    if expects_nothing:
        return [] if code in "13" else [RetrievedItem("x0")]
    target = RetrievedItem(f"d{i}", score=1.0, chunk_id=None)
    others = [RetrievedItem(f"x{j}#c{j}") for j in range(4)]
    if code == "1":
        return [target, *others]
    if code == "3":
        return [others[0], others[0], others[1], target, others[2]]
    return others


def make_run(
    codes: str,
    *,
    qs: GoldenQuestionSet | None = None,
    identifier: str = "bm25",
    started: datetime | int = 0,
    latency_ms: float | Sequence[float] = 5.0,
    parameters: RunParameters | None = None,
    description: RetrieverDescription | None = None,
    labels: Mapping[str, str] | None = None,
    run_id: str | None = None,
    target: str | None = None,
) -> RunResult:
    """A run of ``qs`` (default: ``len(codes)`` questions) scored by the engine's own
    protocol and metrics, one code per question.

    ``started`` as an int is minutes after T0, so tests order runs explicitly.
    """
    qs = qs or question_set(len(codes))
    assert len(codes) == len(qs.questions)
    description = description or RetrieverDescription(
        identifier=identifier, version="1.0", chunk_separator="#", metadata={"k": "v"}
    )
    p = parameters or RunParameters(doc_id_separator="#")
    outcomes = []
    for i, (q, code) in enumerate(zip(qs.questions, codes, strict=True)):
        latency = float(latency_ms if isinstance(latency_ms, float | int) else latency_ms[i])
        if code == "-":
            continue
        failure = (
            RetrievalFailure(FailureKind.TIMEOUT, f"deadline exceeded on {q.id}")
            if code == "E"
            else None
        )
        items = None if failure else _ranking(i, code, q.expects_nothing)
        outcomes.append(
            score_question(q, items, ks=p.ks, limit=p.limit, separator=p.doc_id_separator,
                           latency_ms=latency, error=failure)
        )  # fmt: skip
    if "-" in codes:
        state = RunState.INTERRUPTED
    elif "E" in codes:
        state = RunState.INCOMPLETE
    else:
        state = RunState.COMPLETE
    by_form, by_hard_class = breakdowns(outcomes, p.ks)
    start = T0 + timedelta(minutes=started) if isinstance(started, int) else started
    return RunResult(
        set_name=qs.name,
        set_fingerprint=qs.fingerprint,
        retriever_target=target or f"grpc://127.0.0.1:50{len(identifier)}",
        retriever=description,
        parameters=p,
        started_at=start,
        finished_at=start + timedelta(seconds=3),
        state=state,
        metrics=summarize(outcomes, p.ks),
        by_form=by_form,
        by_hard_class=by_hard_class,
        latency=run_latency(outcomes),
        questions=tuple(outcomes),
        underfilled_count=sum(o.underfilled for o in outcomes),
        labels=dict(labels or {}),
        run_id=run_id,
    )
