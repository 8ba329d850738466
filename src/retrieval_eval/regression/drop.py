"""Whether a rate fell by more than a threshold, exactly: from hit counts when known."""

from __future__ import annotations

import math
from fractions import Fraction

from retrieval_eval.records.metrics import GroupMetrics

_EPS = 1e-9


def drop_exceeds(metric: str, now: GroupMetrics, before: GroupMetrics, limit: float) -> bool:
    """baseline rate - current rate > limit, exactly: from the hit counts when known."""
    if not math.isfinite(limit):
        return limit < 0
    a, b = now.intervals.get(metric), before.intervals.get(metric)
    if a is not None and b is not None and a.count and b.count:
        drop = Fraction(b.successes, b.count) - Fraction(a.successes, a.count)
        return drop > Fraction(repr(limit))
    return before.values[metric] - now.values[metric] > limit + _EPS
