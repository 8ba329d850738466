"""Many runs against a reference: deltas, McNemar with Holm's correction (checked against
scipy), the paired bootstrap, breakdowns, the per-question grid and rank overlap."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest
from support.factory import make_run, question_set

from retrieval_eval.comparison.compare import compare_runs
from retrieval_eval.comparison.label_versions import version_name
from retrieval_eval.comparison.overlap import jaccard, rbo
from retrieval_eval.comparison.results import Cell
from retrieval_eval.errors import InputError
from retrieval_eval.records.outcome import Form

QS = question_set(
    12,
    forms=[Form.MATCH] * 8 + [Form.GAP] * 4,
    classes=["near-duplicate"] * 3 + [None] * 9,
)
REF = "111111000033"
BETTER = "111111111133"  # four miss -> hit at top-1 and top-3
WORSE = "000111000000"  # three hit -> miss at top-1, five at top-3


def runs(*codes: str):
    return [make_run(c, qs=QS, started=i, run_id=f"run{i}") for i, c in enumerate(codes)]


def test_runs_side_by_side_with_deltas_and_holm_corrected_mcnemar():
    comparison = compare_runs(runs(REF, BETTER, WORSE), resamples=500)
    assert [c.run_id for c in comparison.runs] == ["run0", "run1", "run2"]
    assert comparison.reference_run_id == "run0" and not comparison.incomparable
    better, worse = comparison.versus
    top1 = {d.metric: d for d in better.deltas}["top1_hit_rate"]
    assert (top1.reference, top1.value) == (pytest.approx(6 / 12), pytest.approx(10 / 12))
    assert top1.delta == pytest.approx(4 / 12)
    assert top1.interval is not None and top1.interval.low <= top1.delta <= top1.interval.high
    tests = {t.k: t for t in better.tests}
    assert (tests[1].wins, tests[1].losses, tests[1].ties) == (4, 0, 8)
    assert {t.k: (t.wins, t.losses) for t in worse.tests} == {1: (0, 3), 3: (0, 5)}
    for k in (1, 3):
        raw = [binomtest(t.wins, t.wins + t.losses, 0.5).pvalue if t.wins + t.losses else 1.0
               for v in comparison.versus for t in v.tests if t.k == k]  # fmt: skip
        ordered = sorted(raw)
        expected_min = min(1.0, 2 * ordered[0])
        expected_max = max(expected_min, min(1.0, ordered[1]))
        got = sorted(t.p_holm for v in comparison.versus for t in v.tests if t.k == k)
        assert got == pytest.approx([expected_min, expected_max])
        assert [t.p_value for v in comparison.versus for t in v.tests if t.k == k] == (
            pytest.approx(raw)
        )
    assert comparison.settings.correction == "holm"
    assert {d.metric for d in better.deltas} >= {"top1_hit_rate", "top3_hit_rate", "p95_ms"}
    assert "mrr@3" in comparison.metric_names


def test_breakdowns_side_by_side():
    comparison = compare_runs(runs(REF, WORSE), resamples=50)
    rows = {(g.kind, g.name): g for g in comparison.groups}
    assert set(rows) == {
        ("form", "MATCH"),
        ("form", "GAP"),
        ("hard_class", "near-duplicate"),
        ("hard_class", "unclassified"),
    }
    near = rows[("hard_class", "near-duplicate")].metrics
    assert [m.values["top1_hit_rate"] for m in near] == [1.0, 0.0]
    assert [m.count for m in near] == [3, 3]


def test_grid_puts_disagreements_first_with_top_documents_and_overlap():
    ref, better = runs(REF, BETTER)
    comparison = compare_runs([ref, better], resamples=50)
    rows = comparison.questions
    assert [r.question_id for r in rows[:4]] == ["q6", "q7", "q8", "q9"]
    assert all(r.disagree for r in rows[:4]) and not any(r.disagree for r in rows[4:])
    assert comparison.disagreements == 4
    q6 = rows[0]
    assert q6.cells == (Cell.MISS, Cell.HIT1) and q6.expected_document_ids == ("d6",)
    assert q6.top_documents[1][0] == "d6"
    assert q6.top_documents[0] == ref.questions[6].ranked_document_ids[:3]
    before, now = ref.questions[6].ranked_document_ids, better.questions[6].ranked_document_ids
    assert q6.overlap[0] is not None
    assert q6.overlap[0].jaccard == pytest.approx(jaccard(before, now, 10))
    assert q6.overlap[0].rbo == pytest.approx(rbo(before, now, 0.9))
    same = rows[-1]
    assert same.overlap[0] is not None and same.overlap[0].rbo == pytest.approx(1.0)
    overlap = comparison.versus[0].overlap
    assert (overlap.k, overlap.rbo_p, overlap.questions, overlap.identical) == (10, 0.9, 12, 8)
    assert overlap.mean_jaccard is not None and 0 < overlap.mean_jaccard < 1


def test_errors_are_cells_of_their_own_and_left_out_of_pairs():
    comparison = compare_runs(runs(REF, "E11111000033"), resamples=50)
    assert comparison.questions[0].cells == (Cell.HIT1, Cell.ERROR)
    assert comparison.questions[0].overlap == (None,)
    assert comparison.versus[0].paired == 11
    assert comparison.runs[1].errors == 1


def test_runs_of_other_labels_are_reported_incomparable():
    other = make_run("1111", qs=question_set(4, name="other"), run_id="elsewhere")
    comparison = compare_runs([*runs(REF, BETTER), other], resamples=50)
    assert [c.run_id for c in comparison.runs] == ["run0", "run1"]
    assert [i.run_id for i in comparison.incomparable] == ["elsewhere"]
    assert comparison.incomparable[0].reasons[0].startswith("labels:")
    assert not any("rescore" in r for r in comparison.incomparable[0].reasons)  # another set


def test_a_run_on_other_labels_of_the_same_set_is_offered_the_rescore():
    grown = question_set(4, classes=[None, None, None, "near-duplicate"])
    older = make_run("1111", qs=grown, run_id="older")
    comparison = compare_runs([*runs(REF, BETTER), older], resamples=50)
    (item,) = comparison.incomparable
    hint = item.reasons[-1]
    assert hint == (
        f"scored on other labels (version {version_name(grown.fingerprint)}, the reference's "
        f"{version_name(runs(REF)[0].set_fingerprint)}): reval runs rescore older --set FILE "
        "scores it on the reference's"
    )


def test_bad_requests():
    with pytest.raises(InputError, match="at least two runs"):
        compare_runs(runs(REF))
    with pytest.raises(InputError, match="named twice"):
        compare_runs([*runs(REF), *runs(REF)])


def test_the_bootstrap_is_reproducible():
    first = compare_runs(runs(REF, BETTER, WORSE), resamples=300, seed=11)
    again = compare_runs(runs(REF, BETTER, WORSE), resamples=300, seed=11)
    assert first.versus == again.versus
