"""A run and a regression verdict for the report tests (built by ``support.factory``)."""

from __future__ import annotations

import pytest
from support.factory import outcome, run_of

from retrieval_eval.records.run import RetrieverDescription, RunResult
from retrieval_eval.regression.verdict_records import (
    Flip,
    FlipDirection,
    MetricDelta,
    PairedTest,
    Verdict,
    VerdictKind,
)


@pytest.fixture
def current_run() -> RunResult:
    return run_of(
        [
            outcome("q1", ["d1"], ["d1#0", "d1#1", "d2"], hard_class="near-duplicate"),
            outcome("q2", ["d5"], ["d2", "d3", "d4", "d5"], form="GAP", latency=4.0),
            outcome(
                "q3",
                ["d7", "d8"],
                ["d9", "d8"],
                form="GAP",
                hard_class="near-duplicate",
                latency=6.0,
            ),
            outcome("q4", [], [], hard_class="no-answer", latency=7.0),
            outcome("q5", [], ["d1"], hard_class="no-answer", latency=9.0),
            outcome("q6", ["d1"], error="timeout", latency=10.0),
        ],
        description=RetrieverDescription("bm25", "1.2", chunk_separator="#", corpus_revision="c1"),
        target="grpc://127.0.0.1:5000",
        labels={"git_sha": "abc123"},
        run_id="r-current",
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
