"""Latency percentiles of a run (client-side wall time per answered question).

Percentiles use linear interpolation between closest ranks (numpy's default "linear"
method, Hyndman & Fan type 7), so that p50 of an even count is the midpoint.
Failed retrievals are left out: a timeout's duration is the deadline, not a latency.
"""

from __future__ import annotations

import heapq
import itertools
import math
from array import array
from collections.abc import Iterable, Sequence
from itertools import islice

from retrieval_eval.records.metrics import LatencySummary
from retrieval_eval.records.outcome import QuestionOutcome


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
    """p50/p95/p99, mean and max; ``None`` when there is nothing to summarize.

    The values are sorted a chunk at a time into C doubles and merged, so a million
    latencies never exist as a list of float objects (about 40 MB) beside the run."""
    chunks = []
    values = iter(values_ms)
    while chunk := sorted(islice(values, _CHUNK)):
        chunks.append(array("d", chunk))
    ordered: Sequence[float] = chunks[0] if len(chunks) == 1 else _Ranks(chunks, _QUANTILES)
    if not ordered:
        return None
    return LatencySummary(
        count=len(ordered),
        p50_ms=percentile(ordered, 50),
        p95_ms=percentile(ordered, 95),
        p99_ms=percentile(ordered, 99),
        mean_ms=math.fsum(itertools.chain.from_iterable(chunks)) / len(ordered),
        max_ms=ordered[-1],
    )


#: Latencies sorted at a time by ``summarize_latency``.
_CHUNK = 65_536
_QUANTILES = (50, 95, 99)


class _Ranks(Sequence[float]):
    """Sorted chunks read as one sorted sequence at the ranks that ``percentile`` reads
    for ``quantiles`` and at the last rank: found in one merge of the chunks."""

    def __init__(self, chunks: list[array[float]], quantiles: Iterable[float]) -> None:
        self._count = count = sum(map(len, chunks))
        wanted = {count - 1}
        for q in quantiles:
            low = math.floor((count - 1) * q / 100)
            wanted |= {low, min(low + 1, count - 1)}
        self._found: dict[int, float] = {}
        for rank, value in enumerate(heapq.merge(*chunks)):
            if rank in wanted:
                self._found[rank] = value

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, rank: int) -> float:  # type: ignore[override]
        return self._found[rank + self._count if rank < 0 else rank]


def run_latency(outcomes: Iterable[QuestionOutcome]) -> LatencySummary | None:
    """Latency summary over the answered questions of a run."""
    return summarize_latency(
        o.latency_ms for o in outcomes if o.error is None and o.latency_ms is not None
    )
