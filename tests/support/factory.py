"""Build real RunResults for the tests: real questions, real scoring (the engine's protocol
and metrics, themselves cross-checked against pytrec_eval and ir_measures elsewhere).

Two ways in. ``make_run`` gives each question's outcome as a one-letter code, for tests of
what happens across runs (store, regression, comparison): "1" top-1 hit, "3" hit at 3 but
not at 1, "0" miss, "E" failed retrieval, "-" not measured (interrupted run); question
``qN`` expects document ``dN``. ``run_of`` holds hand-written rankings (``outcome``), for
tests of how one run is shown (reports): every figure can be checked by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from retrieval_eval.evaluation.latency import run_latency
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState
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


def outcome(
    qid: str,
    expected: Sequence[str],
    ranking: Sequence[str | RetrievedItem] | None = None,
    *,
    form: str = "MATCH",
    hard_class: str | None = None,
    error: str | None = None,
    latency: float = 5.0,
    text: str | None = None,
    parameters: RunParameters | None = None,
) -> QuestionOutcome:
    """Question ``qid`` scored by the engine's protocol: ``ranking`` is what the retriever
    returned, raw ids (chunk ids such as ``d1#0`` allowed) or items with scores; ``error``
    a failure kind (``"timeout"``...) instead of a ranking. Without ``text`` the outcome
    carries no question text, as a run stored before texts were kept."""
    p = parameters or RunParameters(doc_id_separator="#")
    q = GoldenQuestion(qid, text or f"question {qid}?", Form(form), tuple(expected), hard_class)
    failure = (
        None
        if error is None
        else RetrievalFailure(FailureKind(error), f"{error} while answering {qid}")
    )
    items = (
        None
        if failure
        else [r if isinstance(r, RetrievedItem) else RetrievedItem(r) for r in ranking or ()]
    )
    scored = score_question(q, items, ks=p.ks, limit=p.limit, separator=p.doc_id_separator,
                            latency_ms=latency, error=failure)  # fmt: skip
    return scored if text is not None else replace(scored, question_text=None)


def run_of(
    outcomes: Sequence[QuestionOutcome],
    *,
    qs: GoldenQuestionSet | None = None,
    set_name: str = "faq",
    identifier: str = "bm25",
    started: datetime | int = 0,
    parameters: RunParameters | None = None,
    description: RetrieverDescription | None = None,
    labels: Mapping[str, str] | None = None,
    run_id: str | None = None,
    target: str | None = None,
    state: RunState | None = None,
) -> RunResult:
    """A run holding ``outcomes``, its figures computed by the engine's metrics. The set
    is ``qs``, else the one the outcomes answer; the state follows from the outcomes
    (an errored question makes it incomplete) unless given.

    ``started`` as an int is minutes after T0, so tests order runs explicitly.
    """
    qs = qs or GoldenQuestionSet(
        name=set_name,
        questions=tuple(
            GoldenQuestion(o.question_id, o.question_text or "", o.form,
                           o.expected_document_ids, o.hard_class)
            for o in outcomes
        ),
    )  # fmt: skip
    description = description or RetrieverDescription(
        identifier=identifier, version="1.0", chunk_separator="#", metadata={"k": "v"}
    )
    p = parameters or RunParameters(doc_id_separator="#")
    if state is None:
        errors = any(not o.answered for o in outcomes)
        state = RunState.INCOMPLETE if errors else RunState.COMPLETE
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
    """A run of ``qs`` (default: ``len(codes)`` questions), one code per question.

    ``started`` as an int is minutes after T0, so tests order runs explicitly.
    """
    qs = qs or question_set(len(codes))
    assert len(codes) == len(qs.questions)
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
    return run_of(
        outcomes,
        qs=qs,
        identifier=identifier,
        started=started,
        parameters=p,
        description=description,
        labels=labels,
        run_id=run_id,
        target=target,
        state=RunState.INTERRUPTED if "-" in codes else None,
    )
