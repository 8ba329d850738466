"""``compare_runs`` gives each run its Judged@k at the reference's depth, so the figures
side by side share a k even when a run reports hit rates at other ks."""

from __future__ import annotations

from dataclasses import replace

from support.factory import make_run, question_set

from retrieval_eval.comparison.compare import compare_runs
from retrieval_eval.records.parameters import RunParameters

QS = question_set(6)
REF = "111333"
OTHER = "113300"


def graded(run):
    """Each question judges its expected documents and ``x0`` (judged not relevant)."""
    grades = {q.question_id: (*((d, 1) for d in q.expected_document_ids), ("x0", 0))
              for q in run.questions}  # fmt: skip
    return replace(run, judgments=grades)


def test_every_run_is_measured_at_the_reference_depth() -> None:
    deeper = RunParameters(ks=(1, 3, 5), limit=20, doc_id_separator="#")
    ref = graded(make_run(REF, qs=QS, run_id="ref"))
    other = graded(make_run(OTHER, qs=QS, run_id="other", started=1, parameters=deeper))
    comparison = compare_runs([ref, other], resamples=20)
    judged = [run.judged for run in comparison.runs]
    assert [j.k for j in judged if j is not None] == [3, 3]
    for run, j in zip((ref, other), judged, strict=True):
        assert j is not None
        shares, missing = [], 0
        for q in run.questions:
            top = q.ranked_document_ids[:3]
            known = [d for d in top if d in dict(run.judgments[q.question_id])]
            shares.append(len(known) / len(top))
            missing += len(top) - len(known)
        assert j.overall.value == sum(shares) / len(shares)
        assert (j.overall.count, j.overall.unjudged) == (len(shares), missing)


def test_plain_labels_give_no_column_a_figure() -> None:
    comparison = compare_runs(
        [make_run(REF, qs=QS, run_id="a"), make_run(OTHER, qs=QS, run_id="b", started=1)],
        resamples=20,
    )
    assert [run.judged for run in comparison.runs] == [None, None]
