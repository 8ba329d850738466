"""Warnings that keep a verdict honest on small sets: how many questions a threshold is
worth, and when a threshold is finer than a single question."""

from __future__ import annotations

from collections.abc import Iterable

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict_records import MetricDelta, PairedTest, Thresholds
from retrieval_eval.stats.mcnemar import SetPower, set_power

#: Below this many answered questions a set is "small": one question moves a rate by
#: more than half a point, so the verdict spells out what the thresholds mean.
SMALL_SET = 200
_EPS = 1e-9


def size_warnings(run: RunResult, thresholds: Thresholds) -> list[str]:
    """What the thresholds mean on a small set, in questions; the numbers are those of
    ``retrieval_eval.stats.mcnemar.set_power`` (as ``reval sets lint`` reports them)."""
    n = run.metrics.count
    if n == 0 or n >= SMALL_SET:
        return []
    power = set_power(n, thresholds.max_top1_drop, thresholds.max_top3_drop)
    limits: dict[float, list[str]] = {}
    for name, t in (("top-1", thresholds.max_top1_drop), ("top-3", thresholds.max_top3_drop)):
        limits.setdefault(t, []).append(name)
    by_threshold = {p.threshold: p for p in power.thresholds}
    out = []
    for t, names in limits.items():
        what = "/".join(names)
        drop = by_threshold.get(t)
        if drop is None or drop.finer_than_one_question:
            out.append(
                f"set too small for the {what} threshold {t:g}: one question is worth "
                f"{power.one_question:.3f} (1/{n}), so losing a single question is a regression"
            )
        else:
            out.append(
                f"small set ({n} scored questions, one question = {power.one_question:.3f}): "
                f"a {what} drop of {t:g} is {drop.threshold_questions:g} questions; "
                f"{drop.regression_losses} or more net losses are a regression; detecting "
                f"such a drop with {power.power:.0%} power needs about "
                f"{drop.questions_needed} questions (if {drop.discordance:.0%} of questions "
                "flip between runs)"
            )
    out.append(_significance_line(power))
    return out


def _significance_line(power: SetPower) -> str:
    flips = power.significant_flips
    if power.smallest_significant_change is None:
        return (
            f"no change on {power.questions} questions can be statistically significant: "
            f"exact McNemar needs at least {flips} questions flipping one way "
            f"(alpha {power.alpha:g})"
        )
    return (
        f"the smallest net change exact McNemar can call significant is {flips} questions "
        f"({power.smallest_significant_change:.3f}), all flipping one way (alpha {power.alpha:g})"
    )


def noise_warnings(deltas: Iterable[MetricDelta], tests: Iterable[PairedTest]) -> list[str]:
    """A regressed overall rate whose paired test does not reject 'no change'."""
    by_k = {t.k: t for t in tests}
    out = []
    for d in deltas:
        k = {TOP1_HIT_RATE: 1, TOP3_HIT_RATE: 3}.get(d.metric)
        test = by_k.get(k) if k else None
        if d.group == "overall" and d.regressed and test is not None and not test.significant:
            out.append(
                f"the top-{k} drop is not statistically significant (McNemar p = "
                f"{test.p_value:.3f}, {test.losses} lost vs {test.wins} gained): it may be noise"
            )
    return out
