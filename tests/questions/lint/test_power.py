"""What a set's size can detect, cross-checked against scipy: the exact McNemar test
(scipy's binomtest), the fewest significant flips, and the exact power of the test at the
questions-needed figure (summing scipy's binomial pmf over every outcome)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from retrieval_eval.stats.mcnemar import (
    fewest_significant_flips,
    mcnemar_exact,
    questions_needed,
    set_power,
)


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1])
def test_fewest_significant_flips_match_scipy(alpha: float) -> None:
    m = fewest_significant_flips(alpha)
    assert binomtest(m, m, 0.5).pvalue < alpha <= binomtest(m - 1, m - 1, 0.5).pvalue
    assert mcnemar_exact(0, m) == pytest.approx(binomtest(0, m, 0.5).pvalue)


def exact_power(n: int, drop: float, discordance: float, alpha: float = 0.05) -> float:
    """P(exact McNemar rejects, in the direction of a loss) when a share ``discordance``
    of the n questions flip and losses outnumber wins by ``drop * n`` on average."""
    d = np.arange(n + 1)
    p_d = binom.pmf(d, n, discordance)
    p_loss = (discordance + drop) / (2 * discordance)
    power = 0.0
    for flips in d[(p_d > 1e-12) & (d > 0)]:
        # Smallest loss count that scipy's two-sided binomial test calls significant.
        lo = next((k for k in range(flips // 2, flips + 1)
                   if binomtest(k, flips, 0.5).pvalue < alpha), None)  # fmt: skip
        if lo is not None:
            power += p_d[flips] * binom.sf(lo - 1, flips, p_loss)
    return power


@pytest.mark.parametrize(("drop", "discordance"), [(0.1, 0.1), (0.1, 0.2), (0.05, 0.1)])
def test_questions_needed_gives_about_80_percent_power(drop: float, discordance: float) -> None:
    n = questions_needed(drop, discordance)
    assert 0.76 <= exact_power(n, drop, discordance) <= 0.86
    assert exact_power(math.floor(n * 0.6), drop, discordance) < 0.7


def test_questions_needed_follows_connor() -> None:
    # (1.959964 * sqrt(0.1) + 0.841621 * sqrt(0.1 - 0.01))^2 / 0.01 = 76.3...
    assert questions_needed(0.1, 0.1) == 77
    assert questions_needed(0.1, 0.05) == questions_needed(0.1, 0.1)  # raised to the drop
    assert questions_needed(0.05, 0.1) > questions_needed(0.1, 0.1)
    with pytest.raises(ValueError):
        questions_needed(0.0)


def test_set_power_for_a_small_and_a_tiny_set() -> None:
    p = set_power(48, 0.1, 0.05)
    assert p.one_question == pytest.approx(1 / 48)
    assert p.significant_flips == 6 and p.smallest_significant_change == pytest.approx(6 / 48)
    top1, top3 = p.thresholds
    assert (top1.threshold_questions, top1.regression_losses) == (pytest.approx(4.8), 5)
    assert (top3.regression_losses, top3.questions_needed) == (3, questions_needed(0.05))
    tiny = set_power(5, 0.1, 0.1)
    assert tiny.smallest_significant_change is None
    assert tiny.thresholds[0].finer_than_one_question
