"""Wilson score intervals, checked against scipy's independent implementation."""

from __future__ import annotations

import pytest

from retrieval_eval.stats.intervals import wilson

stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize(
    ("successes", "count"),
    [(0, 1), (1, 1), (0, 10), (10, 10), (3, 10), (47, 50), (1, 300), (150, 300), (299, 300)],
)
def test_wilson_matches_scipy(successes: int, count: int) -> None:
    reference = stats.binomtest(successes, count).proportion_ci(0.95, method="wilson")
    estimate = wilson(successes, count)
    assert estimate.rate == successes / count
    assert estimate.low == pytest.approx(reference.low, abs=1e-12)
    assert estimate.high == pytest.approx(reference.high, abs=1e-12)
    assert (estimate.successes, estimate.count) == (successes, count)


def test_hand_worked_interval() -> None:
    # 8/10 at z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71683,
    # half 1.96 * sqrt(0.016 + 0.0096040) / 1.38416 = 0.22658.
    estimate = wilson(8, 10)
    assert estimate.low == pytest.approx(0.4902, abs=1e-4)
    assert estimate.high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_rejects_an_empty_group() -> None:
    with pytest.raises(ValueError, match="count > 0"):
        wilson(0, 0)
