"""Per-form and per-hard-class checks that respect a group's size.

The rule, beside the thresholds it refines:

1. The whole set keeps the ADR meaning: a top-1 / top-3 drop larger than its threshold is
   a regression.
2. A form or hard class fails the gate only when its drop is larger than the threshold
   *and* its paired flips are significant: the exact McNemar test on the questions of
   that group answered in both runs (top-1 flips for the top-1 rate, top-3 for top-3),
   Holm-corrected across every group x rate checked, at ``SIGNIFICANCE_LEVEL``.
3. A drop beyond the threshold that is not significant is a warning saying what the
   group would need: how many questions lost one way (none gained) would be significant,
   and whether the group has that many questions at all.

So a 4-question class losing one question warns (McNemar p = 1.0), while a 40-question
class losing 12 with none gained fails (p = 0.0005, still below 0.05 after Holm).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records import QuestionOutcome
from retrieval_eval.regression.verdict_records import MetricDelta
from retrieval_eval.stats.many_runs import holm
from retrieval_eval.stats.mcnemar import SIGNIFICANCE_LEVEL, mcnemar_exact, paired_counts

_K = {TOP1_HIT_RATE: 1, TOP3_HIT_RATE: 3}
_NAMES = {TOP1_HIT_RATE: "top-1", TOP3_HIT_RATE: "top-3"}
Pairs = Sequence[tuple[QuestionOutcome, QuestionOutcome]]


@dataclass(frozen=True, slots=True)
class GroupTest:
    wins: int
    losses: int
    p_value: float


def group_test(delta: MetricDelta, pairs: Pairs) -> GroupTest | None:
    """McNemar on the flips of ``delta``'s group at its rate's k; None for the overall
    group, latency, or a rate other than top-1 / top-3."""
    k = _K.get(delta.metric)
    kind, _, name = delta.group.partition(":")
    if k is None or kind not in ("form", "hard_class"):
        return None
    hits = [
        (before.hits[k], now.hits[k])
        for now, before in pairs
        if _in_group(now, kind, name) and k in now.hits and k in before.hits
    ]
    wins, losses, _ = paired_counts(hits)
    return GroupTest(wins, losses, mcnemar_exact(wins, losses))


def _in_group(outcome: QuestionOutcome, kind: str, name: str) -> bool:
    if kind == "form":
        return outcome.form.value == name
    return (outcome.hard_class or "") == name


def apply(deltas: Sequence[MetricDelta], pairs: Pairs) -> tuple[list[MetricDelta], list[str]]:
    """The deltas with each form / class check decided by the rule above (its Holm-adjusted
    p-value recorded), and a warning for each drop beyond the threshold left unfailed."""
    tests = {i: group_test(d, pairs) for i, d in enumerate(deltas) if d.threshold is not None}
    tested = {i: t for i, t in tests.items() if t is not None}
    adjusted = dict(zip(tested, holm([t.p_value for t in tested.values()]), strict=True))
    out, warnings = list(deltas), []
    for i, p in adjusted.items():
        d = deltas[i]
        over = d.regressed  # the drop is larger than the threshold
        significant = p < SIGNIFICANCE_LEVEL
        out[i] = replace(d, regressed=over and significant, p_value=p)
        if over and not significant:
            warnings.append(_warning(d, tested[i], p, len(tested)))
    return out, warnings


def fewest_one_way_losses(checked: int, alpha: float = SIGNIFICANCE_LEVEL) -> int:
    """The fewest losses with no win whose McNemar p stays below ``alpha`` after Holm's
    strictest step (``checked`` tests), i.e. p * checked < alpha."""
    n = 1
    while mcnemar_exact(0, n) * max(checked, 1) >= alpha:
        n += 1
    return n


def _warning(d: MetricDelta, test: GroupTest, adjusted: float, checked: int) -> str:
    need = fewest_one_way_losses(checked)
    size = d.current_count
    advice = f"it would need at least {need} questions lost with none gained to be significant" + (
        f", more than its {size} questions: grow the {d.group} group" if size < need else ""
    )
    return (
        f"{_NAMES[d.metric]} in {d.group} fell {-d.delta:.3f} ({d.baseline:.3f} -> "
        f"{d.current:.3f}), more than the allowed {d.threshold:g}, but its flips are not "
        f"significant ({test.losses} lost, {test.wins} gained; McNemar p = {test.p_value:.3f}, "
        f"Holm-adjusted over {checked} group checks p = {adjusted:.3f}): a warning, not a "
        f"regression; {advice}"
    )
