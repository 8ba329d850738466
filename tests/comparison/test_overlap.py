"""Jaccard and rank-biased overlap against hand-worked examples and the paper's
definition summed term by term."""

from __future__ import annotations

import random

import pytest

from retrieval_eval.comparison.overlap import jaccard, rbo


def test_jaccard_of_top_k():
    assert jaccard(list("abcd"), list("bcxy"), 2) == pytest.approx(1 / 3)  # {a,b} vs {b,c}
    assert jaccard(list("abcd"), list("dcba"), 4) == 1.0
    assert jaccard([], [], 10) == 1.0
    assert jaccard(["a"], [], 10) == 0.0
    with pytest.raises(ValueError):
        jaccard(["a"], ["a"], 0)


def test_rbo_identical_disjoint_and_empty():
    assert rbo(list("abcdef"), list("abcdef")) == pytest.approx(1.0)
    assert rbo(list("abc"), list("xyz")) == 0.0
    assert rbo([], []) == 1.0
    assert rbo(["a"], []) == 0.0
    with pytest.raises(ValueError):
        rbo(["a"], ["a"], p=1.0)


def test_rbo_swap_worked_by_hand():
    # X1 = 1, X2 = 1, X3 = 3, p = 0.9:
    # (1 - p)/p * (1*0.9 + 1/2*0.81 + 3/3*0.729) + 3/3 * 0.729 = 0.226 + 0.729 = 0.955
    assert rbo(list("abc"), list("acb"), 0.9) == pytest.approx(0.955)


def test_rbo_uneven_lengths_worked_by_hand():
    # S = ab (s=2), L = acb (l=3), p = 0.9: X1 = 1, X2 = 1 = X_s, X3 = 2.
    # sum X_d/d p^d = 0.9 + 0.405 + 0.486 = 1.791; extrapolation at d=3:
    # X_s (d-s)/(s d) p^d = 1 * 1/6 * 0.729 = 0.1215; (1-p)/p * 1.9125 = 0.2125
    # tail ((X_l - X_s)/l + X_s/s) p^l = (1/3 + 1/2) * 0.729 = 0.6075 -> 0.82
    assert rbo(list("ab"), list("acb"), 0.9) == pytest.approx(0.82)
    assert rbo(list("acb"), list("ab"), 0.9) == pytest.approx(0.82)  # symmetric


def test_rbo_persistence_changes_the_weight_of_the_top():
    a, b = list("abcdefgh"), list("bacdefgh")  # only the first two swapped
    assert rbo(a, b, 0.5) < rbo(a, b, 0.9) < rbo(a, b, 0.98) < 1.0


def definitional_rbo(a: list[str], b: list[str], p: float) -> float:
    """Equation 32 of Webber et al. written term by term from prefix sets."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, ell = len(short), len(long_)

    def x(d: int) -> int:
        return len(set(short[: min(d, s)]) & set(long_[:d]))

    first = sum(x(d) / d * p**d for d in range(1, ell + 1))
    second = sum(x(s) * (d - s) / (s * d) * p**d for d in range(s + 1, ell + 1))
    return (1 - p) / p * (first + second) + ((x(ell) - x(s)) / ell + x(s) / s) * p**ell


@pytest.mark.parametrize("seed", range(25))
def test_rbo_matches_the_definition_on_random_rankings(seed):
    rng = random.Random(seed)
    pool = [f"d{i}" for i in range(15)]
    a = rng.sample(pool, rng.randint(1, 12))
    b = rng.sample(pool, rng.randint(1, 12))
    p = rng.choice([0.5, 0.8, 0.9, 0.95])
    assert rbo(a, b, p) == pytest.approx(definitional_rbo(a, b, p), rel=1e-12)
    assert 0.0 <= rbo(a, b, p) <= 1.0 + 1e-12
