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
from collections import Counter
from collections.abc import Sequence

DEFAULT_RESAMPLES = 1000
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
    (interval,) = paired_bootstrap_many(
        [differences], resamples=resamples, seed=seed, confidence=confidence
    )
    return interval


def paired_bootstrap_many(
    columns: Sequence[Sequence[float]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
) -> list[tuple[float, float] | None]:
    """``paired_bootstrap`` of several metrics over the same questions (columns of equal
    length): each resample of questions is drawn once and used for every column, as the
    questions are what is resampled; one column gives exactly ``paired_bootstrap``."""
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    n = len(columns[0]) if columns else 0
    if any(len(c) != n for c in columns):
        raise ValueError("every column must hold one value per question")
    if n == 0:
        return [None] * len(columns)
    rng = random.Random(seed)
    population = range(n)
    # Between two similar runs most questions' differences are 0 and move no mean: a
    # sparse column is summed over its changed questions, weighted by how often the
    # resample drew each; a dense one over the resample directly.
    values = [list(c) for c in columns]
    changed = [[(i, v) for i, v in enumerate(c) if v] for c in values]
    sparse = [len(nz) * 4 < n for nz in changed]
    means: list[list[float]] = [[] for _ in columns]
    for _ in range(resamples):
        picked = rng.choices(population, k=n)
        tally = Counter(picked) if any(sparse) else None
        for column, nz, is_sparse, out in zip(values, changed, sparse, means, strict=True):
            if is_sparse and tally is not None:
                out.append(sum([tally[i] * v for i, v in nz]) / n)
            else:
                out.append(sum(map(column.__getitem__, picked)) / n)
    alpha = (1.0 - confidence) / 2
    return [_interval(sorted(m), alpha) for m in means]


def _interval(ordered: Sequence[float], alpha: float) -> tuple[float, float]:
    return _quantile(ordered, alpha), _quantile(ordered, 1.0 - alpha)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default method)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
