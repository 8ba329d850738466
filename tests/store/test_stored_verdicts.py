"""A run keeps the verdict it was given and its retriever scores."""

from __future__ import annotations

from dataclasses import replace

from support.factory import make_run, question_set
from support.store import save_as_eval

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.stored import stored_verdict
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds, VerdictKind

QS = question_set(6, forms=[Form.MATCH] * 6)


def test_the_verdict_is_stored_with_the_run_and_read_back_exactly(store):
    baseline = make_run("111111", qs=QS, started=0)
    base_id = save_as_eval(store, baseline, judge(baseline, None, Thresholds()))
    run = make_run("110000", qs=QS, started=1)
    verdict = judge(run, store.find_baseline(run), Thresholds(0.05, 0.2))
    assert verdict.kind is VerdictKind.REGRESSION and verdict.flips
    run_id = store.save(run, verdict)
    stored = store.get_stored(run_id)
    assert stored_verdict(stored) == verdict
    assert stored_verdict(stored).thresholds == Thresholds(0.05, 0.2)
    assert stored_verdict(stored).baseline_run_id == base_id
    assert stored_verdict(store.get_stored(base_id)).kind is VerdictKind.NO_BASELINE
    summary = store.list_runs()[0]
    assert (summary.verdict_kind, summary.baseline_run_id) == ("regression", base_id)
    assert summary.variant == "bm25 1.0 · grpc://127.0.0.1:504"


def test_a_run_saved_without_a_check_has_no_verdict(store):
    run_id = store.save(make_run("13"))
    assert store.get_stored(run_id).verdict_document is None
    assert store.list_runs()[0].verdict_kind == ""


def test_retriever_scores_round_trip(store):
    run = make_run("130")
    assert run.questions[0].raw_scores[0] == 1.0 and run.questions[0].raw_scores[1] is None
    assert run.questions[2].raw_scores == ()  # no result carried a score
    assert store.get(store.save(run)).questions == run.questions


def test_history_returns_runs_of_one_set_and_retriever_with_verdicts(store):
    ids = [store.save(make_run("11", started=m), judge(make_run("11"), None, Thresholds()))
           for m in range(3)]  # fmt: skip
    store.save(make_run("11", started=5, identifier="dense"))
    store.pin(ids[0])
    found = store.history("faq", "bm25", limit=2)
    assert [s.run.run_id for s in found] == [ids[2], ids[1]]
    assert [stored_verdict(s).kind for s in found] == [VerdictKind.NO_BASELINE] * 2
    assert [s.pinned for s in store.history("faq", "bm25")] == [False, False, True]


def test_an_error_budget_in_percent_round_trips(store):
    from fractions import Fraction

    from retrieval_eval.regression.verdict_records import ErrorBudget, Verdict

    run = make_run("1E", started=0)
    thresholds = Thresholds(max_errors=ErrorBudget(percent=Fraction(1, 3)))
    verdict = Verdict(VerdictKind.INCOMPLETE, reasons=("1 of 2 failed",), thresholds=thresholds)
    stored = store.get_stored(store.save(run, verdict))
    assert stored_verdict(stored) == verdict
    assert stored_verdict(stored).thresholds.max_errors.percent == Fraction(1, 3)


def test_notes_on_how_an_answer_was_made_round_trip(store):
    run = make_run("10")
    skipped = 'member "dense" skipped: unavailable: connection refused'
    first = replace(run.questions[0], notes=(skipped, "second note"))
    run = replace(run, questions=(first, *run.questions[1:]))
    stored = store.get(store.save(run))
    assert stored.questions[0].notes == (skipped, "second note")
    assert stored.questions[1].notes == ()
    assert stored.questions == run.questions
