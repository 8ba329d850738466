"""Latency percentiles of a run (client-side wall time per answered question).

Percentiles use linear interpolation between closest ranks (numpy's default "linear"
method, Hyndman & Fan type 7), so that p50 of an even count is the midpoint.
Failed retrievals are left out: a timeout's duration is the deadline, not a latency.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from retrieval_eval.records import LatencySummary, QuestionOutcome


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of already sorted values, linear interpolation."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    position = (len(sorted_values) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = position - low
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * fraction


def summarize_latency(values_ms: Iterable[float]) -> LatencySummary | None:
    """p50/p95/p99, mean and max; ``None`` when there is nothing to summarize."""
    ordered = sorted(values_ms)
    if not ordered:
        return None
    return LatencySummary(
        count=len(ordered),
        p50_ms=percentile(ordered, 50),
        p95_ms=percentile(ordered, 95),
        p99_ms=percentile(ordered, 99),
        mean_ms=math.fsum(ordered) / len(ordered),
        max_ms=ordered[-1],
    )


def run_latency(outcomes: Iterable[QuestionOutcome]) -> LatencySummary | None:
    """Latency summary over the answered questions of a run."""
    return summarize_latency(
        o.latency_ms for o in outcomes if o.error is None and o.latency_ms is not None
    )
