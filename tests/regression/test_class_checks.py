"""Holm's correction and the class-check rule, against a direct reading of their
definitions."""

from __future__ import annotations

import random
from itertools import product

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.regression.class_checks import fewest_one_way_losses, group_flips, group_test
from retrieval_eval.regression.verdict_records import MetricDelta
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


def test_one_pass_flip_counts_equal_filtering_each_group_as_defined():
    """``group_test`` counts flips from one pass over the pairs; the definition filters the
    pairs of each group (by the current outcome's form / hard class, both runs scored at k)."""
    rng = random.Random(11)
    forms, classes = list(Form), [None, "negation", "numeric"]
    for _ in range(60):
        pairs = []
        for i in range(rng.randint(0, 40)):
            qid = f"q{i}"
            form, hard_class = rng.choice(forms), rng.choice(classes)

            def side(form=form, hard_class=hard_class, qid=qid) -> QuestionOutcome:
                scored = rng.random() < 0.85  # else an error: no hits, not counted
                top1 = rng.random() < 0.5
                hits = {1: top1, 3: top1 or rng.random() < 0.5} if scored else {}
                return QuestionOutcome(qid, form, hard_class, ("d",), hits=hits)

            pairs.append((side(), side()))
        flips = group_flips(pairs)
        groups = [("form", f.value) for f in forms] + [("hard_class", c or "") for c in classes]
        for (kind, name), metric in product(groups, (TOP1_HIT_RATE, TOP3_HIT_RATE)):
            k = 1 if metric == TOP1_HIT_RATE else 3
            members = [
                (before.hits[k], now.hits[k])
                for now, before in pairs
                if (now.form.value if kind == "form" else now.hard_class or "") == name
                and k in now.hits
                and k in before.hits
            ]
            wins = sum(1 for was, is_ in members if is_ and not was)
            losses = sum(1 for was, is_ in members if was and not is_)
            delta = MetricDelta(f"{kind}:{name}", metric, 0.5, 0.4, 0.05, True, 10, 10)
            test = group_test(delta, flips)
            assert test is not None
            assert (test.wins, test.losses) == (wins, losses)
            assert test.p_value == mcnemar_exact(wins, losses)
