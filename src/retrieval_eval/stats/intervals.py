"""95% intervals for rates: the Wilson score interval.

Chosen over the normal approximation because golden sets are small (tens to hundreds of
questions) and hit rates sit near 0 or 1, where the normal interval leaves [0, 1] and
undercovers; Wilson is closed-form, deterministic and well behaved there.
"""

from __future__ import annotations

import math

from retrieval_eval.records.metrics import RateEstimate

#: Two-sided 95% standard-normal quantile.
Z_95 = 1.959963984540054


def wilson(successes: int, count: int, z: float = Z_95) -> RateEstimate:
    """The rate ``successes / count`` with its Wilson score interval.

    ``count`` must be positive: a rate over no questions has no value to report.
    """
    if count <= 0 or not 0 <= successes <= count:
        raise ValueError(f"need 0 <= successes <= count and count > 0, got {successes}/{count}")
    p = successes / count
    z2 = z * z
    denominator = 1.0 + z2 / count
    centre = (p + z2 / (2 * count)) / denominator
    half = z * math.sqrt(p * (1 - p) / count + z2 / (4 * count * count)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == count else min(1.0, centre + half)
    return RateEstimate(rate=p, low=low, high=high, successes=successes, count=count)
