"""The power figures at the edges of floating point: a threshold or alpha so small that
its square (or ``1 - alpha / 2``) no longer fits a float still gives an exact answer, the
one the exact formula gives in rational arithmetic."""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.stats.mcnemar import (
    fewest_significant_flips,
    mcnemar_exact,
    questions_needed,
    set_power,
)

#: Down to the smallest subnormal float, up to the largest threshold people use.
tiny = st.floats(min_value=5e-324, max_value=1e-150)
share = st.floats(min_value=5e-324, max_value=1.0)
alphas = st.floats(min_value=1e-323, max_value=0.5)


def exact_needed(drop: float, discordance: float, alpha: float, power: float = 0.8) -> Fraction:
    """Connor's figure with the float roots, squared and divided in rationals."""
    psi = max(discordance, drop)
    z_alpha = -NormalDist().inv_cdf(alpha / 2)
    z_power = NormalDist().inv_cdf(power)
    rest = Fraction(psi) - Fraction(drop) ** 2
    root = z_alpha * math.sqrt(psi) + z_power * math.sqrt(max(float(rest), 0.0))
    return Fraction(root) ** 2 / Fraction(drop) ** 2


def assert_near(needed: int, exact: Fraction) -> None:
    """``needed`` is ``exact`` rounded up, give or take the float path's rounding."""
    assert math.ceil(exact * (1 - Fraction(1, 10**12)) - Fraction(1, 10**9)) <= needed
    assert needed <= math.ceil(exact * (1 + Fraction(1, 10**12)))


@given(drop=tiny, discordance=share)
def test_a_tiny_drop_needs_the_exact_number_of_questions(drop: float, discordance: float):
    needed = questions_needed(drop, discordance)
    exact = exact_needed(drop, discordance, 0.05)
    assert_near(needed, exact)
    if drop * drop < sys.float_info.min:  # its square underflows: exact rationals
        assert needed == math.ceil(exact)
    assert needed >= questions_needed(1e-150, discordance)


@given(alpha=alphas, drop=st.floats(min_value=1e-3, max_value=1.0))
def test_a_tiny_alpha_is_a_larger_z_not_an_error(alpha: float, drop: float):
    needed = questions_needed(drop, alpha=alpha)
    assert needed >= questions_needed(drop, alpha=0.5) >= 1
    assert_near(needed, exact_needed(drop, 0.1, alpha))
    flips = fewest_significant_flips(alpha)
    assert mcnemar_exact(0, flips) < alpha <= mcnemar_exact(0, flips - 1)


def test_an_alpha_that_halves_to_zero_is_refused():
    with pytest.raises(ValueError, match="alpha must be in"):
        questions_needed(0.1, alpha=5e-324)


@given(drop=tiny, questions=st.integers(min_value=1, max_value=10_000))
def test_set_power_under_a_tiny_threshold_calls_one_question_a_regression(
    drop: float, questions: int
):
    power = set_power(questions, drop, 0.1)
    top1 = power.thresholds[0]
    assert top1.finer_than_one_question and top1.regression_losses == 1
    assert top1.questions_needed > questions
