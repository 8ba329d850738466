"""The verdict's small-set warning quotes the numbers ``reval sets lint`` reports: both
come from ``retrieval_eval.stats.mcnemar.set_power``."""

from __future__ import annotations

import dataclasses

from support.factory import make_run, question_set

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.stats.mcnemar import set_power


def warnings_for(n: int, thresholds: Thresholds) -> tuple[str, ...]:
    qs = question_set(n, forms=[Form.MATCH] * n)
    baseline = dataclasses.replace(make_run("1" * n, qs=qs, started=0), run_id="b")
    current = dataclasses.replace(make_run("1" * n, qs=qs, started=10), run_id="c")
    return judge(current, baseline, thresholds).warnings


def test_small_set_warning_uses_set_power() -> None:
    thresholds = Thresholds(max_top1_drop=0.1, max_top3_drop=0.05)
    power = set_power(48, 0.1, 0.05)
    text = "\n".join(warnings_for(48, thresholds))
    for t in power.thresholds:
        assert f"{t.regression_losses} or more net losses" in text
        assert f"needs about {t.questions_needed} questions" in text
    assert (
        f"smallest net change exact McNemar can call significant is {power.significant_flips} "
        f"questions ({power.smallest_significant_change:.3f})" in text
    )


def test_too_small_for_any_significant_change() -> None:
    text = "\n".join(warnings_for(5, Thresholds()))
    assert "no change on 5 questions can be statistically significant" in text
