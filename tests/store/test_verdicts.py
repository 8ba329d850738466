"""Baselines chosen by the store, judged end to end: slow drift caught by a pinned
baseline, and an incomplete run that is never what a new run is judged against."""

from __future__ import annotations

from support.factory import make_run, question_set
from support.store import save_as_eval

from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds, VerdictKind

QS = question_set(20, forms=[Form.MATCH] * 20)


def codes(hits: int, errors: int = 0) -> str:
    """``hits`` top-1 hits, then ``errors`` failed retrievals, the rest misses."""
    return "1" * hits + "E" * errors + "0" * (20 - hits - errors)


def evaluate_and_save(store, hits: int, minute: int, errors: int = 0):
    run = make_run(codes(hits, errors), qs=QS, started=minute)
    verdict = judge(run, store.find_baseline(run), Thresholds())
    return save_as_eval(store, run, verdict), verdict


def test_slow_drift_passes_run_to_run_but_not_against_a_pinned_baseline(store):
    first, _ = evaluate_and_save(store, 18, 0)
    drift = [evaluate_and_save(store, hits, m) for m, hits in enumerate((17, 16, 15), 1)]
    assert [v.kind for _, v in drift] == [VerdictKind.PASS] * 3  # 0.05 at a time
    store.pin(first)
    _, verdict = evaluate_and_save(store, 15, 5)
    assert verdict.kind is VerdictKind.REGRESSION  # 0.90 -> 0.75 against the pin
    assert verdict.baseline_run_id == first
    assert sum(1 for f in verdict.flips if f.k == 1 and f.direction == "hit->miss") == 3


def test_an_incomplete_run_is_skipped_as_baseline(store):
    complete, _ = evaluate_and_save(store, 18, 0)
    incomplete, _ = evaluate_and_save(store, 16, 1, errors=4)  # rate 1.0 over 16 answered
    run = make_run(codes(17), qs=QS, started=2)
    baseline = store.find_baseline(run)
    assert baseline.run_id == complete != incomplete
    verdict = judge(run, baseline, Thresholds())
    assert verdict.kind is VerdictKind.PASS and verdict.baseline_run_id == complete
