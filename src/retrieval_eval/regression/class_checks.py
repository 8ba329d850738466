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
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.regression.verdict_records import MetricDelta
from retrieval_eval.stats.many_runs import holm
from retrieval_eval.stats.mcnemar import SIGNIFICANCE_LEVEL, mcnemar_exact

_K = {TOP1_HIT_RATE: 1, TOP3_HIT_RATE: 3}
_NAMES = {TOP1_HIT_RATE: "top-1", TOP3_HIT_RATE: "top-3"}
Pairs = Sequence[tuple[QuestionOutcome, QuestionOutcome]]


@dataclass(frozen=True, slots=True)
class GroupTest:
    wins: int
    losses: int
    p_value: float


def group_flips(pairs: Pairs) -> dict[tuple[str, str, int], tuple[int, int]]:
    """(wins, losses) of every form and hard class at k = 1 and 3, keyed (kind, name, k),
    counted in one pass over the pairs: a question belongs to the groups of its current
    outcome, and counts at k only when both runs scored k. Groups without a flip are absent.
    """
    counts: dict[tuple[str, str, int], list[int]] = {}
    for now, before in pairs:
        for k in (1, 3):
            was, is_ = before.hits.get(k), now.hits.get(k)
            if was is None or is_ is None or was == is_:
                continue
            side = 0 if is_ else 1  # a win, or a loss
            for key in (("form", now.form.value, k), ("hard_class", now.hard_class or "", k)):
                counts.setdefault(key, [0, 0])[side] += 1
    return {key: (wins, losses) for key, (wins, losses) in counts.items()}


def group_test(
    delta: MetricDelta, flips: dict[tuple[str, str, int], tuple[int, int]]
) -> GroupTest | None:
    """McNemar on the flips (``group_flips``) of ``delta``'s group at its rate's k; None for
    the overall group, latency, or a rate other than top-1 / top-3."""
    k = _K.get(delta.metric)
    kind, _, name = delta.group.partition(":")
    if k is None or kind not in ("form", "hard_class"):
        return None
    wins, losses = flips.get((kind, name, k), (0, 0))
    return GroupTest(wins, losses, mcnemar_exact(wins, losses))


def apply(deltas: Sequence[MetricDelta], pairs: Pairs) -> tuple[list[MetricDelta], list[str]]:
    """The deltas with each form / class check decided by the rule above (its Holm-adjusted
    p-value recorded), and a warning for each drop beyond the threshold left unfailed."""
    checked = [(i, d) for i, d in enumerate(deltas) if d.threshold is not None]
    flips = group_flips(pairs) if checked else {}
    tests = {i: group_test(d, flips) for i, d in checked}
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
