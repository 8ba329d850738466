"""Failure texts of the quality assertions: every check that cannot be made fails, and
says why; a check that passes says nothing."""

from __future__ import annotations

import pytest
from support.factory import outcome, run_of

from retrieval_eval.regression.verdict_records import Verdict, VerdictKind
from retrieval_eval.report.run.assertions import rate_failure, regression_failure


@pytest.fixture
def run():
    return run_of(
        [
            outcome("q1", ["a"], ["a#0", "b#0"], form="MATCH", hard_class="normal"),
            outcome("q2", ["b"], ["c#0", "b#0"], form="GAP", hard_class="normal"),
            outcome("q3", ["d"], ["x#0", "y#0", "z#0", "d#0"], form="GAP"),
        ]
    )


def test_a_rate_at_or_above_the_bar_passes(run) -> None:
    assert rate_failure(run, "top3_hit_rate", 2 / 3) is None
    assert rate_failure(run, "top1_hit_rate", 1.0, form="MATCH") is None


def test_a_rate_below_the_bar_lists_the_misses_with_their_ranking(run) -> None:
    text = rate_failure(run, "top1_hit_rate", 0.5, form="GAP")
    assert text is not None
    lines = text.splitlines()
    assert lines[0].startswith("faq × bm25")
    i = run.by_form["GAP"].intervals["top1_hit_rate"]
    assert lines[0].endswith(
        f"top1_hit_rate in form GAP is 0.000 [95% {i.low:.3f}, {i.high:.3f}] (0/2)"
    )
    assert lines[1:] == [
        "required: at least 0.5",
        "missed at top-1 (2):",
        "  q2: expected b; got c, b",
        "  q3: expected d; got x, y, z",
    ]


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"metric": "binary_ndcg@10"}, "did not measure binary_ndcg@10 (overall); measured: "),
        ({"metric": "top5_hit_rate"}, "'top5_hit_rate' is not a metric: top1_hit_rate, "),
        ({"metric": "top1_hit_rate", "form": "UNLABELLED"}, "has no questions in form UNLABELLED"),
        (
            {"metric": "top1_hit_rate", "hard_class": "boilerplate"},
            "has no questions in hard class boilerplate",
        ),
    ],
)
def test_a_check_that_cannot_be_made_fails(run, kwargs, expected) -> None:
    metric = kwargs.pop("metric")
    text = rate_failure(run, metric, 0.0, **kwargs)
    assert text is not None and expected in text


def test_errored_questions_fail_the_rate_of_their_group_only() -> None:
    run = run_of(
        [
            outcome("q1", ["a"], ["a#0"], form="MATCH"),
            outcome("q2", ["b"], error="timeout", form="GAP"),
        ]
    )
    assert rate_failure(run, "top1_hit_rate", 1.0, form="MATCH") is None
    text = rate_failure(run, "top1_hit_rate", 0.0)
    assert text is not None
    assert "1 errored questions are not counted, so the rate cannot pass" in text
    assert "  q2: timeout: timeout while answering q2" in text


def test_only_a_failing_verdict_fails(run) -> None:
    assert regression_failure(run, Verdict(VerdictKind.PASS)) is None
    assert regression_failure(run, Verdict(VerdictKind.NO_BASELINE)) is None
    unjudged = regression_failure(run, None)
    assert unjudged is not None and unjudged.endswith(
        "was not judged (interrupted, or the run store failed)"
    )
    text = regression_failure(
        run,
        Verdict(
            VerdictKind.INCOMPARABLE, "r-old", ("labels differ",), incomparable_parts=("labels",)
        ),
    )
    assert text is not None
    assert "verdict INCOMPARABLE" in text.splitlines()[0]
    i = run.metrics.intervals["top1_hit_rate"]
    assert f"  top1_hit_rate: 0.333 [95% {i.low:.3f}, {i.high:.3f}] (1/3)" in text
    assert "  - labels differ" in text
    assert "differs: labels" in text


def test_both_form_and_hard_class_is_a_usage_error(run) -> None:
    with pytest.raises(ValueError, match="not both"):
        rate_failure(run, "top1_hit_rate", 0.5, form="GAP", hard_class="normal")
