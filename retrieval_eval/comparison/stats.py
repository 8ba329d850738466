"""Statistics for many runs against one reference: Holm's step-down correction of the
per-run McNemar p-values, and a seeded paired bootstrap interval of a rate's delta.

Holm controls the family-wise error rate across the runs compared without assuming the
tests are independent (they are not: every run is paired with the same reference), and
is uniformly more powerful than Bonferroni.

The paired bootstrap resamples *questions* (with replacement), keeping each question's
pair of outcomes together, and reports the percentile interval of the mean difference.
It is driven by ``random.Random(seed)``, so the same runs always give the same interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order (each capped at 1, monotone in rank)."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def paired_bootstrap(
    differences: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float] | None:
    """Percentile interval of the mean of per-question ``differences`` (current minus
    reference, e.g. 1 - 0 for a question that became a hit); None without questions."""
    n = len(differences)
    if n == 0:
        return None
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    rng = random.Random(seed)
    values = list(differences)
    means = sorted(
        math.fsum(values[j] for j in rng.choices(range(n), k=n)) / n for _ in range(resamples)
    )
    alpha = (1.0 - confidence) / 2
    return _quantile(means, alpha), _quantile(means, 1.0 - alpha)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default method)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
