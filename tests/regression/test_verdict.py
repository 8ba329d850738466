"""Verdicts on real scored runs: improvement, regression, the exact threshold, per-group
regressions hidden overall, incomparable benchmarks, latency and small-set warnings."""

from __future__ import annotations

import dataclasses

import pytest
from support.factory import make_run, question_set

from retrieval_eval.errors import InputError
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.regression.verdict import compare, judge
from retrieval_eval.regression.verdict_records import ErrorBudget, Thresholds, VerdictKind
from retrieval_eval.stats.mcnemar import mcnemar_exact

DEFAULT = Thresholds()


def pair(before: str, now: str, **kwargs):
    """(current, baseline); by default every question is MATCH with no hard class, so only
    the overall group and one form group are checked."""
    kwargs.setdefault("qs", question_set(len(now), forms=[Form.MATCH] * len(now)))
    baseline = dataclasses.replace(make_run(before, started=0, **kwargs), run_id="base-1")
    current = dataclasses.replace(make_run(now, started=10, **kwargs), run_id="cur-1")
    return current, baseline


def overall(verdict, metric="top1_hit_rate"):
    (d,) = [d for d in verdict.deltas if d.group == "overall" and d.metric == metric]
    return d


def test_no_baseline():
    verdict = judge(make_run("1130"), None, DEFAULT)
    assert verdict.kind is VerdictKind.NO_BASELINE
    assert not verdict.fails()
    assert "'faq'" in verdict.reasons[0] and "'bm25'" in verdict.reasons[0]


def test_improvement_passes_and_lists_gains():
    current, baseline = pair("1000000000", "1111000000")
    verdict = judge(current, baseline, DEFAULT)
    assert verdict.kind is VerdictKind.PASS and not verdict.fails()
    assert verdict.baseline_run_id == "base-1"
    assert overall(verdict).delta == pytest.approx(0.3)
    gained = {(f.question_id, f.k) for f in verdict.flips if f.direction == "miss->hit"}
    assert gained == {("q1", 1), ("q2", 1), ("q3", 1), ("q1", 3), ("q2", 3), ("q3", 3)}
    assert not [f for f in verdict.flips if f.direction == "hit->miss"]


def test_regression_beyond_threshold():
    current, baseline = pair("1111111111", "1111100000")
    verdict = judge(current, baseline, DEFAULT)
    assert verdict.kind is VerdictKind.REGRESSION and verdict.fails()
    assert overall(verdict).regressed and overall(verdict, "top3_hit_rate").regressed
    assert any("top-1 hit rate overall fell 0.500 (1.000 -> 0.500" in r for r in verdict.reasons)
    lost = [f for f in verdict.flips if f.direction == "hit->miss" and f.k == 1]
    assert [f.question_id for f in lost] == ["q5", "q6", "q7", "q8", "q9"]
    assert lost[0].expected_document_ids == ("d5",)
    assert lost[0].baseline_ranking[0] == "d5" and "d5" not in lost[0].current_ranking
    (t1,) = [t for t in verdict.tests if t.k == 1]
    assert (t1.wins, t1.losses, t1.ties) == (0, 5, 5)
    assert t1.p_value == pytest.approx(mcnemar_exact(0, 5)) and not t1.significant


@pytest.mark.parametrize(
    ("before", "now"),
    [
        ("1111100000", "1111000000"),  # 0.5 -> 0.4: 0.5 - 0.4 < 0.1 in floating point
        ("1111111100", "1111111000"),  # 0.8 -> 0.7: 0.8 - 0.7 > 0.1 in floating point
        ("1110000000", "1100000000"),  # 0.3 -> 0.2
    ],
)
def test_drop_exactly_at_threshold_is_not_a_regression(before, now):
    current, baseline = pair(before, now)
    verdict = judge(current, baseline, DEFAULT)
    assert overall(verdict).delta == pytest.approx(-0.1)
    assert verdict.kind is VerdictKind.PASS, verdict.reasons


def test_drop_one_question_past_threshold_is_a_regression():
    current, baseline = pair("1111111100", "1111110000")
    assert judge(current, baseline, DEFAULT).kind is VerdictKind.REGRESSION


def test_drop_within_threshold_passes():
    current, baseline = pair("1" * 20, "1" * 19 + "3")
    verdict = judge(current, baseline, DEFAULT)
    assert verdict.kind is VerdictKind.PASS
    assert overall(verdict).delta == pytest.approx(-0.05)
    assert overall(verdict, "top3_hit_rate").delta == 0
    assert [(f.question_id, f.k) for f in verdict.flips] == [("q19", 1)]


def test_class_regression_hidden_by_cancellation_overall():
    """40 near-duplicates lose 12 (none gained) while 40 prose-free questions gain 12:
    overall nothing moved, the class fails (McNemar p = 2/4096, significant after Holm)."""
    classes = ["near-duplicate"] * 40 + ["prose-free"] * 40
    qs = question_set(80, forms=[Form.MATCH] * 80, classes=classes)
    before = "1" * 12 + "0" * 28 + "0" * 12 + "0" * 28
    now = "0" * 12 + "0" * 28 + "1" * 12 + "0" * 28
    current, baseline = pair(before, now, qs=qs)
    verdict = judge(current, baseline, DEFAULT)
    assert overall(verdict).delta == 0 and not overall(verdict).regressed
    assert verdict.kind is VerdictKind.REGRESSION
    regressed = {(d.group, d.metric) for d in verdict.deltas if d.regressed}
    assert regressed == {
        ("hard_class:near-duplicate", "top1_hit_rate"),
        ("hard_class:near-duplicate", "top3_hit_rate"),
    }
    assert any("in hard_class:near-duplicate fell 0.300" in r for r in verdict.reasons)
    assert verdict.tests[0].p_value == 1.0  # 12 lost, 12 gained


def test_a_small_class_losing_one_question_warns_and_does_not_fail():
    """4 questions, one lost: a drop of 0.25 > 0.1, but McNemar p = 1.0."""
    classes = ["near-duplicate"] * 4 + [None] * 36
    qs = question_set(40, forms=[Form.MATCH] * 40, classes=classes)
    current, baseline = pair("1111" + "1" * 36, "0111" + "1" * 36, qs=qs)
    verdict = judge(current, baseline, DEFAULT)
    assert verdict.kind is VerdictKind.PASS and not verdict.fails()
    (d,) = [d for d in verdict.deltas if d.group == "hard_class:near-duplicate"
            and d.metric == "top1_hit_rate"]  # fmt: skip
    assert d.delta == -0.25 and not d.regressed and d.p_value == 1.0
    (warning,) = [w for w in verdict.warnings if "hard_class:near-duplicate fell" in w
                  and w.startswith("top-1")]  # fmt: skip
    assert "not significant" in warning and "1 lost, 0 gained" in warning
    assert "more than its 4 questions: grow the hard_class:near-duplicate group" in warning


def test_holm_correction_across_classes_decides_a_borderline_class():
    """6 one-way losses give p = 2/64 = 0.031 alone, but not after Holm over >= 2 checks."""
    classes = ["a"] * 10 + ["b"] * 10
    qs = question_set(20, forms=[Form.MATCH] * 20, classes=classes)
    before = "1" * 6 + "0" * 4 + "1" * 10
    now = "0" * 6 + "0" * 4 + "1" * 10
    verdict = judge(*pair(before, now, qs=qs), DEFAULT)
    (d,) = [d for d in verdict.deltas if d.group == "hard_class:a" and d.metric == "top1_hit_rate"]
    assert d.delta == -0.6 and d.p_value is not None and d.p_value >= 0.05
    assert not d.regressed
    assert overall(verdict).regressed  # 0.3 overall is still beyond 0.1: the ADR rule


def test_form_regression_is_checked_too():
    # Even positions are MATCH, odd are GAP: GAP loses 12 of 40, MATCH gains 12.
    qs = question_set(80)
    before = "".join("0" if i % 2 == 0 else ("1" if i < 24 else "0") for i in range(80))
    now = "".join(("1" if i < 24 else "0") if i % 2 == 0 else "0" for i in range(80))
    verdict = judge(*pair(before, now, qs=qs), DEFAULT)
    assert {d.group for d in verdict.deltas if d.regressed} == {"form:GAP"}


def test_benchmark_mismatch_is_incomparable_and_fails():
    base = RetrieverDescription("bm25", "1", chunk_separator="#", corpus_revision="c1")
    baseline = make_run("1111", description=base)
    current = make_run("1111", description=dataclasses.replace(base, corpus_revision="c2"))
    verdict = judge(current, baseline, DEFAULT)
    assert verdict.kind is VerdictKind.INCOMPARABLE and verdict.fails()
    assert verdict.incomparable_parts == ("corpus",)
    assert "corpus: 'c2' (current) vs 'c1' (baseline)" in verdict.reasons
    assert verdict.deltas == () and verdict.flips == ()


def test_labels_that_changed_are_incomparable():
    baseline = make_run("1111")
    current = make_run("1111", qs=question_set(4, no_answer=(2,)))
    assert judge(current, baseline, DEFAULT).incomparable_parts == ("labels",)


def test_latency_threshold():
    current, baseline = pair("1111", "1111")
    baseline = dataclasses.replace(make_run("1111", latency_ms=[5, 6, 7, 8]), run_id="b")
    current = make_run("1111", latency_ms=[5, 6, 7, 40], started=5)
    assert judge(current, baseline, DEFAULT).kind is VerdictKind.PASS  # not checked by default
    slow = judge(current, baseline, Thresholds(max_p95_latency_increase_ms=20))
    assert slow.kind is VerdictKind.REGRESSION
    (d,) = [d for d in slow.deltas if d.group == "latency"]
    assert d.metric == "p95_ms" and d.delta == pytest.approx(
        current.latency.p95_ms - baseline.latency.p95_ms
    )
    assert "p95 latency rose" in slow.reasons[0]
    assert judge(current, baseline, Thresholds(max_p95_latency_increase_ms=60)).kind == "pass"


def test_small_set_warnings_count_questions():
    current, baseline = pair("1" * 48, "1" * 48)
    (line,) = [w for w in judge(current, baseline, DEFAULT).warnings if "small set" in w]
    # 0.1 * 48 = 4.8 questions: 4 lost is within, 5 is a regression.
    assert "48 scored questions" in line and "4.8 questions" in line
    assert "5 or more net losses" in line
    assert judge(*pair("1" * 48, "1" * 43 + "0" * 5), DEFAULT).kind is VerdictKind.REGRESSION
    assert judge(*pair("1" * 48, "1" * 44 + "0" * 4), DEFAULT).kind is VerdictKind.PASS


def test_threshold_finer_than_one_question_is_warned():
    current, baseline = pair("1" * 20, "1" * 20)
    verdict = judge(current, baseline, Thresholds(max_top1_drop=0.01, max_top3_drop=0.2))
    assert any("set too small for the top-1 threshold 0.01" in w for w in verdict.warnings)
    assert any("top-3 drop of 0.2 is 4 questions" in w for w in verdict.warnings)
    assert not [w for w in judge(*pair("1" * 500, "1" * 500), DEFAULT).warnings if "small" in w]


def test_errors_beyond_the_budget_make_the_verdict_incomplete_never_pass():
    current, baseline = pair("1111", "11E1")  # the errored question was a miss before
    verdict = judge(current, baseline, DEFAULT)  # budget 0
    assert verdict.kind is VerdictKind.INCOMPLETE and verdict.fails()
    assert verdict.reasons == (
        "1 of 4 questions failed to retrieve (1 timeout), more than --max-errors 0: "
        "the run cannot be judged",
    )
    assert verdict.baseline_run_id is None and verdict.deltas == ()
    assert judge(current, None, DEFAULT).kind is VerdictKind.INCOMPLETE


@pytest.mark.parametrize(
    ("budget", "errors", "questions", "exceeded"),
    [
        ("0", 0, 300, False),
        ("0", 1, 300, True),
        ("3", 3, 300, False),
        ("3", 4, 300, True),
        ("2%", 6, 300, False),  # exactly 2%
        ("2%", 7, 300, True),
        ("0.5%", 1, 200, False),
        ("0.5%", 2, 200, True),
        ("100%", 300, 300, False),
    ],
)
def test_error_budget_counts_and_percentages_exactly(budget, errors, questions, exceeded):
    assert ErrorBudget.parse(budget).exceeded_by(errors, questions) is exceeded


@pytest.mark.parametrize("text", ["-1", "two", "101%", "%", "1.5", "-2%"])
def test_a_bad_error_budget_names_the_option(text):
    with pytest.raises(InputError, match="--max-errors"):
        ErrorBudget.parse(text)


def test_runs_within_the_error_budget_are_judged_over_answered_questions_with_a_warning():
    # The errored question was a miss in the baseline: a miss either way, so it passes.
    current, baseline = pair("1101", "11E1")
    verdict = judge(current, baseline, Thresholds(max_errors=ErrorBudget(1)))
    assert verdict.kind is VerdictKind.PASS and verdict.rule == "errors-as-misses"
    assert any("current run is incomplete: 1 failed retrievals" in w for w in verdict.warnings)
    assert any("1 question scored in only one run" in w for w in verdict.warnings)
    assert verdict.tests[0].ties == 3
    assert any("passes on the 3 questions scored in both runs and with the 1 errored question "
               "counted as misses" in r for r in verdict.reasons)  # fmt: skip


def test_an_error_on_a_question_the_baseline_hit_counts_as_the_miss_it_could_be():
    current, baseline = pair("1111", "11E1")
    verdict = judge(current, baseline, Thresholds(max_errors=ErrorBudget(1)))
    assert verdict.kind is VerdictKind.REGRESSION and verdict.rule == "errors-as-misses"
    overall = {d.metric: d for d in verdict.deltas if d.group == "overall"}
    assert (overall["top1_hit_rate"].baseline, overall["top1_hit_rate"].current) == (1.0, 0.75)
    assert any("counted as misses: errors never improve a verdict" in r for r in verdict.reasons)


def test_non_significant_regression_is_flagged_as_possible_noise():
    verdict = judge(*pair("1111111111", "1111111100"), Thresholds(0.1, 0.1))
    assert verdict.kind is VerdictKind.REGRESSION
    assert any("not statistically significant (McNemar p = 0.500" in w for w in verdict.warnings)


def test_compare_two_retrievers():
    a = dataclasses.replace(make_run("1100110011", identifier="bm25"), run_id="a")
    b = dataclasses.replace(make_run("1111110000", identifier="dense"), run_id="b")
    verdict = compare(a, b)
    assert verdict.kind is VerdictKind.PASS and verdict.baseline_run_id == "a"
    assert all(d.threshold is None and not d.regressed for d in verdict.deltas)
    t1 = verdict.tests[0]
    assert (t1.wins, t1.losses) == (2, 2)
    assert compare(a, b, Thresholds(0.0, 0.0)).kind is VerdictKind.PASS  # equal rates
    worse = make_run("1000000000", identifier="dense")
    assert compare(a, worse, DEFAULT).kind is VerdictKind.REGRESSION


def test_compare_warns_on_parameters_but_refuses_other_labels():
    a = make_run("1111")
    b = make_run("1111", parameters=RunParameters(overfetch=2, limit=6, doc_id_separator="#"))
    verdict = compare(a, b)
    assert verdict.kind is VerdictKind.PASS
    assert any(
        w.startswith("benchmark differs, compared anyway: parameters") for w in verdict.warnings
    )
    other = make_run("1111", qs=question_set(4, no_answer=(0,)))
    assert compare(a, other).kind is VerdictKind.INCOMPARABLE


def _at(run, concurrency, probe_ms=None):
    from retrieval_eval.evaluation.latency import summarize_latency

    params = dataclasses.replace(run.parameters, concurrency=concurrency)
    probe = None if probe_ms is None else summarize_latency(probe_ms)
    return dataclasses.replace(run, parameters=params, latency_probe=probe)


def test_latency_gate_warns_across_concurrencies():
    gate = Thresholds(max_p95_latency_increase_ms=20)
    baseline = dataclasses.replace(make_run("1111", latency_ms=[5, 6, 7, 8]), run_id="b")
    current = make_run("1111", latency_ms=[5, 6, 7, 40], started=5)
    same = judge(_at(current, 8), _at(baseline, 8), gate)
    differ = judge(_at(current, 32), _at(baseline, 8), gate)
    assert not any("concurrencies" in w for w in same.warnings)
    assert differ.kind is VerdictKind.REGRESSION  # still judged, but said to be suspect
    (note,) = [w for w in differ.warnings if "concurrencies" in w]
    assert "8 in flight in the baseline, 32 now" in note and "--latency-probe" in note
    ungated = judge(_at(current, 32), _at(baseline, 8), DEFAULT)  # no gate: nothing to warn
    assert not any("concurrencies" in w for w in ungated.warnings)


def test_latency_gate_compares_unloaded_probes_when_both_runs_have_one():
    gate = Thresholds(max_p95_latency_increase_ms=20)
    baseline = dataclasses.replace(make_run("1111", latency_ms=[5, 6, 7, 8]), run_id="b")
    current = make_run("1111", latency_ms=[5, 6, 7, 40], started=5)  # loaded p95 +27 ms
    calm = judge(_at(current, 32, [4, 5, 6]), _at(baseline, 8, [4, 5, 7]), gate)
    assert calm.kind is VerdictKind.PASS  # the probes say the retriever did not slow down
    (d,) = [d for d in calm.deltas if d.metric == "p95_ms"]
    assert d.group == "latency:unloaded" and d.current_count == 3
    assert not any("concurrencies" in w for w in calm.warnings)
    slower = judge(_at(current, 8, [4, 5, 60]), _at(baseline, 8, [4, 5, 7]), gate)
    assert slower.kind is VerdictKind.REGRESSION
    assert "unloaded p95 latency rose" in slower.reasons[0]
    one_sided = judge(_at(current, 8, [4, 5, 6]), _at(baseline, 8), gate)  # loaded gate
    assert [d.group for d in one_sided.deltas if d.metric == "p95_ms"] == ["latency"]


def test_a_baseline_on_older_labels_names_the_rescore():
    baseline = dataclasses.replace(make_run("1111"), run_id="base-1")
    current = make_run("1111", qs=question_set(4, no_answer=(2,)))
    verdict = judge(current, baseline, DEFAULT)
    assert verdict.kind is VerdictKind.INCOMPARABLE and verdict.fails()
    assert verdict.reasons[-1] == (
        "baseline base-1 was scored on older labels of set 'faq': rescore it on the current "
        "ones with `reval runs rescore base-1 --set FILE`"
    )
    # another part moving too (corpus, protocol) is not fixed by a rescore: no hint
    base = RetrieverDescription("bm25", "1", chunk_separator="#", corpus_revision="c1")
    other = dataclasses.replace(make_run("1111", description=base), run_id="base-2")
    assert not any("rescore" in r for r in judge(current, other, DEFAULT).reasons)
