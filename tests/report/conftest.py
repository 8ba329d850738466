"""Runs and verdicts built directly from records, so reports are tested on their own.

The builder scores a handful of hand-written rankings with the plain protocol (distinct
documents, top-k over them) so every figure in a report can be checked by hand.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from retrieval_eval.records import (
    Form,
    GroupMetrics,
    LatencySummary,
    NoAnswerStats,
    QuestionOutcome,
    RateEstimate,
    RetrievalFailure,
    RetrieverDescription,
    RunParameters,
    RunResult,
    RunState,
)
from retrieval_eval.regression.verdict_records import (
    Flip,
    FlipDirection,
    MetricDelta,
    PairedTest,
    Verdict,
    VerdictKind,
)

KS = (1, 3)


def outcome(
    qid, expected, ranking=None, *, form="MATCH", hard_class=None, error=None, latency=5.0
) -> QuestionOutcome:
    """A scored question: ``ranking`` is raw ids; ``error`` a kind string."""
    if error is not None:
        return QuestionOutcome(
            qid,
            Form(form),
            hard_class,
            tuple(expected),
            latency_ms=latency,
            error=RetrievalFailure(error, f"{error} while answering {qid}"),
        )
    raw = tuple(ranking or ())
    distinct = tuple(dict.fromkeys(r.split("#")[0] for r in raw))
    if expected:
        hits = {k: any(d in expected for d in distinct[:k]) for k in KS}
    else:
        hits = {k: not raw for k in KS}
    return QuestionOutcome(
        qid, Form(form), hard_class, tuple(expected), raw, distinct, hits, latency
    )


def group(outcomes) -> GroupMetrics:
    answered = [o for o in outcomes if o.answered]
    n = len(answered)
    values, intervals = {}, {}
    for k, name in ((1, "top1_hit_rate"), (3, "top3_hit_rate")):
        s = sum(o.hits[k] for o in answered)
        rate = s / n if n else 0.0
        values[name] = rate
        intervals[name] = RateEstimate(rate, max(0.0, rate - 0.2), min(1.0, rate + 0.2), s, n)
    values["mrr@3"] = values["top1_hit_rate"]
    empty = [o for o in answered if not o.expected_document_ids]
    no_answer = None
    if empty:
        ok = sum(1 for o in empty if not o.raw_ids)
        no_answer = NoAnswerStats(len(empty), ok, len(empty) - ok)
    return GroupMetrics(n, len(outcomes) - n, values, intervals, no_answer)


def build_run(
    outcomes, *, set_name="faq", identifier="bm25", run_id="r-current", state=None
) -> RunResult:
    by_form, by_class = {}, {}
    for o in outcomes:
        by_form.setdefault(o.form.value, []).append(o)
        by_class.setdefault(o.hard_class or "normal", []).append(o)
    errors = sum(1 for o in outcomes if not o.answered)
    started = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return RunResult(
        set_name=set_name,
        set_fingerprint="sha256:" + "ab" * 32,
        retriever_target="grpc://127.0.0.1:5000",
        retriever=RetrieverDescription(
            identifier, "1.2", chunk_separator="#", corpus_revision="c1"
        ),
        parameters=RunParameters(doc_id_separator="#"),
        started_at=started,
        finished_at=started + timedelta(seconds=2.5),
        state=state or (RunState.INCOMPLETE if errors else RunState.COMPLETE),
        metrics=group(outcomes),
        by_form={k: group(v) for k, v in by_form.items()},
        by_hard_class={k: group(v) for k, v in by_class.items()},
        latency=LatencySummary(len(outcomes), 5.0, 9.0, 9.5, 6.0, 10.0),
        questions=tuple(outcomes),
        labels={"git_sha": "abc123"},
        run_id=run_id,
    )


@pytest.fixture
def current_run() -> RunResult:
    return build_run(
        [
            outcome("q1", ["d1"], ["d1#0", "d1#1", "d2"], hard_class="near-duplicate"),
            outcome("q2", ["d5"], ["d2", "d3", "d4", "d5"], form="GAP"),
            outcome("q3", ["d7", "d8"], ["d9", "d8"], form="GAP", hard_class="near-duplicate"),
            outcome("q4", [], [], hard_class="no-answer"),
            outcome("q5", [], ["d1"], hard_class="no-answer"),
            outcome("q6", ["d1"], error="timeout"),
        ]
    )


@pytest.fixture
def regression_verdict() -> Verdict:
    return Verdict(
        kind=VerdictKind.REGRESSION,
        baseline_run_id="r-baseline",
        reasons=("top-1 hit rate dropped by 0.200 (> 0.100)",),
        deltas=(
            MetricDelta("overall", "top1_hit_rate", 0.8, 0.6, 0.1, True, 5, 5),
            MetricDelta("overall", "top3_hit_rate", 0.8, 0.8, 0.1, False, 5, 5),
        ),
        flips=(
            Flip(
                "q2", 1, FlipDirection.HIT_TO_MISS, ("d5",), ("d2", "d3", "d4", "d5"), ("d5", "d2")
            ),
            Flip("q3", 1, FlipDirection.MISS_TO_HIT, ("d7", "d8"), ("d9", "d8"), ("d9",)),
            Flip(
                "q2", 3, FlipDirection.HIT_TO_MISS, ("d5",), ("d2", "d3", "d4", "d5"), ("d5", "d2")
            ),
        ),
        tests=(PairedTest(1, 1, 1, 3, 1.0, False), PairedTest(3, 0, 1, 4, 1.0, False)),
        warnings=("set too small: one question moves top-1 by 0.200",),
    )
