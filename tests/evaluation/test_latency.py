"""Latency percentiles against numpy's linear-interpolation percentiles."""

from __future__ import annotations

import random

import pytest

from retrieval_eval.evaluation import latency
from retrieval_eval.evaluation.latency import percentile, run_latency, summarize_latency
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form, QuestionOutcome

np = pytest.importorskip("numpy")


@pytest.mark.parametrize("n", [1, 2, 3, 10, 101, 1000])
def test_percentiles_match_numpy(n: int) -> None:
    rng = random.Random(n)
    values = [rng.expovariate(0.1) for _ in range(n)]
    summary = summarize_latency(values)
    assert summary is not None
    for q, mine in ((50, summary.p50_ms), (95, summary.p95_ms), (99, summary.p99_ms)):
        assert mine == pytest.approx(float(np.percentile(values, q)))
    assert summary.mean_ms == pytest.approx(float(np.mean(values)))
    assert (summary.count, summary.max_ms) == (n, max(values))


@pytest.mark.parametrize("n", [6, 7, 8, 29, 1000])
def test_sorting_in_chunks_gives_the_figures_of_one_sort(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of 7 (one, several, a partial last): the merged ranks are exact, equal to
    sorting everything at once, and still agree with numpy."""
    rng = random.Random(n)
    values = [rng.expovariate(0.1) * rng.choice([1e-3, 1, 1e3]) for _ in range(n)]
    whole = summarize_latency(values)
    monkeypatch.setattr(latency, "_CHUNK", 7)
    chunked = summarize_latency(iter(values))
    assert chunked == whole and chunked is not None
    assert chunked.p95_ms == pytest.approx(float(np.percentile(values, 95)))
    assert chunked.max_ms == max(values) and chunked.count == n


def test_percentile_hand_worked() -> None:
    assert percentile([10.0, 20.0], 50) == 15.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95) == pytest.approx(4.8)
    assert summarize_latency([]) is None


def test_failed_retrievals_are_left_out_of_latency() -> None:
    def made(qid: str, latency: float, error: RetrievalFailure | None = None) -> QuestionOutcome:
        return QuestionOutcome(qid, Form.MATCH, None, ("a",), latency_ms=latency, error=error)

    timeout = RetrievalFailure(FailureKind.TIMEOUT, "deadline exceeded")
    summary = run_latency([made("a", 2.0), made("b", 4.0), made("c", 10_000.0, timeout)])
    assert summary is not None
    assert (summary.count, summary.p50_ms, summary.max_ms) == (2, 3.0, 4.0)
