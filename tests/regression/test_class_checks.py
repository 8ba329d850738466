"""Holm's correction and the class-check rule, against a direct reading of their
definitions."""

from __future__ import annotations

import random

from retrieval_eval.regression.class_checks import fewest_one_way_losses
from retrieval_eval.stats.many_runs import holm as holm_adjusted
from retrieval_eval.stats.mcnemar import mcnemar_exact


def holm_rejects(p_values: list[float], alpha: float) -> set[int]:
    """Holm (1979) as written: sort ascending, reject while p_(i) <= alpha / (m - i)."""
    m = len(p_values)
    rejected = set()
    for i, index in enumerate(sorted(range(m), key=lambda j: p_values[j])):
        if p_values[index] > alpha / (m - i):
            break
        rejected.add(index)
    return rejected


def test_adjusted_p_values_reject_exactly_what_holms_procedure_rejects():
    rng = random.Random(7)
    for _ in range(500):
        m = rng.randint(1, 12)
        p_values = [rng.choice([rng.random(), rng.random() / 50, 1.0]) for _ in range(m)]
        adjusted = holm_adjusted(p_values)
        assert all(a >= p for a, p in zip(adjusted, p_values, strict=True))
        for alpha in (0.01, 0.05, 0.1):
            tiny = 1e-12  # "<= alpha" in the procedure, "< alpha" on adjusted values
            by_adjusted = {i for i, a in enumerate(adjusted) if a <= alpha + tiny}
            assert by_adjusted == holm_rejects(p_values, alpha)


def test_fewest_one_way_losses_is_the_smallest_count_significant_after_the_strictest_step():
    for checked in (1, 2, 6, 14, 40):
        n = fewest_one_way_losses(checked)
        assert mcnemar_exact(0, n) * checked < 0.05
        assert mcnemar_exact(0, n - 1) * checked >= 0.05
    assert fewest_one_way_losses(1) == 6  # p = 2/64 = 0.031
