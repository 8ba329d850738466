"""Holm's correction against its step-down definition and hand-worked values; the paired
bootstrap against scipy's bootstrap, and its reproducibility."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.stats import bootstrap

from retrieval_eval.stats.many_runs import holm, paired_bootstrap, paired_bootstrap_many


def test_holm_worked_by_hand():
    # sorted 0.01, 0.03, 0.04 with m = 3: 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []
    assert holm([0.02]) == [0.02]


def step_down_rejections(p_values: list[float], alpha: float) -> set[int]:
    """Holm (1979): reject H(1..i) while p(j) <= alpha / (m - j + 1)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected: set[int] = set()
    for rank, i in enumerate(order):
        if p_values[i] > alpha / (len(p_values) - rank):
            break
        rejected.add(i)
    return rejected


@pytest.mark.parametrize("seed", range(30))
def test_holm_adjusted_values_reject_exactly_what_the_step_down_rejects(seed):
    rng = random.Random(seed)
    p_values = [rng.choice([rng.random() * 0.1, rng.random()]) for _ in range(rng.randint(1, 8))]
    adjusted = holm(p_values)
    for alpha in (0.01, 0.05, 0.1):
        by_adjusted = {i for i, q in enumerate(adjusted) if q <= alpha}
        assert by_adjusted == step_down_rejections(p_values, alpha)
    assert all(q >= p for p, q in zip(p_values, adjusted, strict=True))


def test_paired_bootstrap_agrees_with_scipy_percentile_interval():
    rng = random.Random(7)
    diffs = [rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0, 1.0]) for _ in range(300)]
    ours = paired_bootstrap(diffs, resamples=4000, seed=3)
    theirs = bootstrap(
        (np.array(diffs),), np.mean, method="percentile", n_resamples=20000,
        random_state=np.random.default_rng(1),
    ).confidence_interval  # fmt: skip
    assert ours is not None
    assert ours[0] == pytest.approx(theirs.low, abs=0.012)
    assert ours[1] == pytest.approx(theirs.high, abs=0.012)
    assert ours[0] < sum(diffs) / len(diffs) < ours[1]


def test_paired_bootstrap_is_seeded():
    diffs = [1.0, 0.0, -1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    assert paired_bootstrap(diffs, seed=5) == paired_bootstrap(diffs, seed=5)
    rng = random.Random(1)
    longer = [rng.choice([-1.0, 0.0, 1.0]) for _ in range(97)]
    assert paired_bootstrap(longer, seed=5, resamples=200) != paired_bootstrap(
        longer, seed=6, resamples=200
    )
    assert paired_bootstrap([], seed=5) is None
    assert paired_bootstrap([0.0] * 10) == (0.0, 0.0)


def reference_bootstrap(diffs, resamples, seed, confidence=0.95):
    """The percentile bootstrap written plainly, drawing questions from the same stream."""
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[j] for j in rng.choices(range(n), k=n)) / n for _ in range(resamples))
    low, high = np.quantile(means, [(1 - confidence) / 2, 1 - (1 - confidence) / 2])
    return low, high


@pytest.mark.parametrize("changed", [3, 40, 150])  # sparse and dense columns alike
def test_many_columns_share_resamples_and_match_the_plain_bootstrap(changed):
    rng = random.Random(changed)
    n = 200
    columns = []
    for _ in range(3):
        column = [0.0] * n
        for i in rng.sample(range(n), changed):
            column[i] = rng.choice([-1.0, 1.0, 0.5, -0.25])
        columns.append(column)
    many = paired_bootstrap_many(columns, resamples=300, seed=9)
    for column, interval in zip(columns, many, strict=True):
        assert interval == pytest.approx(reference_bootstrap(column, 300, 9), abs=1e-12)
