"""Warnings that keep a verdict honest on small sets: how many questions a threshold is
worth, and when a threshold is finer than a single question."""

from __future__ import annotations

import math
from collections.abc import Iterable

from retrieval_eval.records import RunResult
from retrieval_eval.regression.types import MetricDelta, PairedTest, Thresholds

#: Below this many answered questions a set is "small": one question moves a rate by
#: more than half a point, so the verdict spells out what the thresholds mean.
SMALL_SET = 200
_EPS = 1e-9


def allowed_losses(threshold: float, count: int) -> int:
    """The largest net number of lost questions that is not a regression (drop <= t)."""
    return math.floor(threshold * count + _EPS)


def size_warnings(run: RunResult, thresholds: Thresholds) -> list[str]:
    n = run.metrics.count
    if n == 0 or n >= SMALL_SET:
        return []
    one = 1 / n
    limits: dict[float, list[str]] = {}
    for name, t in (("top-1", thresholds.max_top1_drop), ("top-3", thresholds.max_top3_drop)):
        limits.setdefault(t, []).append(name)
    out = []
    for t, names in limits.items():
        what = "/".join(names)
        if t + _EPS < one:
            out.append(
                f"set too small for the {what} threshold {t:g}: one question is worth "
                f"{one:.3f} (1/{n}), so losing a single question is a regression"
            )
        else:
            allowed = allowed_losses(t, n)
            out.append(
                f"small set ({n} answered questions, one question = {one:.3f}): a {what} "
                f"drop of {t:g} is {t * n:g} questions; {allowed + 1} or more net losses "
                "are a regression"
            )
    return out


def tiny_group_warning(deltas: Iterable[MetricDelta]) -> list[str]:
    """Breakdown groups so small that one lost question exceeds the threshold."""
    tiny = sorted({
        f"{d.group} ({d.current_count})"
        for d in deltas
        if d.group != "overall" and d.threshold is not None and d.current_count
        and 1 / d.current_count > d.threshold + _EPS
    })  # fmt: skip
    if not tiny:
        return []
    return ["one lost question is a regression in these small groups: " + ", ".join(tiny)]


def noise_warnings(deltas: Iterable[MetricDelta], tests: Iterable[PairedTest]) -> list[str]:
    """A regressed overall rate whose paired test does not reject 'no change'."""
    by_k = {t.k: t for t in tests}
    out = []
    for d in deltas:
        k = {"top1_hit_rate": 1, "top3_hit_rate": 3}.get(d.metric)
        test = by_k.get(k) if k else None
        if d.group == "overall" and d.regressed and test is not None and not test.significant:
            out.append(
                f"the top-{k} drop is not statistically significant (McNemar p = "
                f"{test.p_value:.3f}, {test.losses} lost vs {test.wins} gained): it may be noise"
            )
    return out
