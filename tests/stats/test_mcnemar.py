"""The exact McNemar p-value, cross-checked against scipy and an independent enumeration."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from scipy.stats import binomtest

from retrieval_eval.stats.mcnemar import mcnemar_exact, paired_counts


def enumerated_p(wins: int, losses: int) -> Fraction:
    """Two-sided exact binomial test by the 'as or less likely' rule, in exact arithmetic:
    sum the probabilities of every outcome no more likely than the observed one."""
    n = wins + losses
    if n == 0:
        return Fraction(1)
    pmf = [Fraction(math.comb(n, i), 2**n) for i in range(n + 1)]
    observed = pmf[wins]
    return min(Fraction(1), sum(p for p in pmf if p <= observed))


@pytest.mark.parametrize("wins", range(0, 26, 3))
@pytest.mark.parametrize("losses", range(0, 26, 4))
def test_matches_scipy_and_enumeration_on_small_counts(wins, losses):
    p = mcnemar_exact(wins, losses)
    assert p == pytest.approx(float(enumerated_p(wins, losses)), rel=1e-12, abs=1e-300)
    if wins + losses:
        assert p == pytest.approx(binomtest(wins, wins + losses, 0.5).pvalue, rel=1e-9)


@pytest.mark.parametrize(
    ("wins", "losses"), [(480, 520), (700, 650), (2400, 2600), (40_000, 41_000), (3, 4000)]
)
def test_matches_scipy_on_large_counts(wins, losses):
    expected = binomtest(wins, wins + losses, 0.5).pvalue
    assert mcnemar_exact(wins, losses) == pytest.approx(expected, rel=1e-7, abs=1e-300)


def test_textbook_values():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)  # 2 * (1/2)^5
    assert mcnemar_exact(1, 9) == pytest.approx(2 * 11 / 1024)
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)


def test_negative_counts_are_rejected():
    with pytest.raises(ValueError, match="wins=-1"):
        mcnemar_exact(-1, 2)


def test_paired_counts():
    pairs = [(True, False), (False, True), (False, True), (True, True), (False, False)]
    assert paired_counts(pairs) == (2, 1, 2)
