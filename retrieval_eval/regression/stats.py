"""The exact McNemar test on paired hit/miss outcomes.

Only discordant pairs carry information: ``wins`` (miss -> hit) and ``losses``
(hit -> miss). Under the null hypothesis (no change) each discordant pair is a fair coin,
so the two-sided p-value is ``2 * P(X <= min(wins, losses))`` for X ~ Binomial(n, 1/2),
capped at 1.
"""

from __future__ import annotations

import math

SIGNIFICANCE_LEVEL = 0.05
#: Up to this many discordant pairs the p-value is computed in exact integers.
_EXACT_UP_TO = 1000


def mcnemar_exact(wins: int, losses: int) -> float:
    """Two-sided exact McNemar p-value; 1.0 when nothing flipped."""
    if wins < 0 or losses < 0:
        raise ValueError(f"counts must be >= 0, got wins={wins}, losses={losses}")
    n, m = wins + losses, min(wins, losses)
    if n == 0:
        return 1.0
    if n <= _EXACT_UP_TO:
        tail = sum(math.comb(n, i) for i in range(m + 1))
        return min(1.0, 2 * tail / (1 << n))
    return min(1.0, 2 * _binomial_half_tail(n, m))


def _binomial_half_tail(n: int, m: int) -> float:
    """P(X <= m), X ~ Binomial(n, 1/2), m <= n/2, in floating point for large n: start at
    the largest term (i = m) and sum downwards until terms no longer matter."""
    log_term = math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1) - n * math.log(2)
    term = math.exp(log_term)
    total = 0.0
    i = m
    while i >= 0 and term > 0.0:
        total += term
        if term < total * 1e-17:
            break
        term *= i / (n - i + 1)  # C(n, i-1) / C(n, i)
        i -= 1
    return total


def paired_counts(pairs: list[tuple[bool, bool]]) -> tuple[int, int, int]:
    """(wins, losses, ties) over (baseline_hit, current_hit) pairs."""
    wins = sum(1 for before, now in pairs if now and not before)
    losses = sum(1 for before, now in pairs if before and not now)
    return wins, losses, len(pairs) - wins - losses
