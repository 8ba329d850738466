"""Lineages and acceptance on SQLite and PostgreSQL: accepted baselines, acceptance by a
person, pins and drift."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.factory import make_run, question_set

from retrieval_eval.errors import InputError
from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.record import judge_and_save
from retrieval_eval.regression.verdict_records import Thresholds, VerdictKind
from retrieval_eval.store.store import RunStore

QS = question_set(10, forms=[Form.MATCH] * 10)
NEW_COLUMNS = {
    "lineage",
    "accepted_at",
    "accepted_by",
    "accepted_reason",
    "pk",
    "accepted_how",
    "accepted_thresholds_json",
    "accepted_baseline",
}


def test_accepting_a_run_makes_it_the_baseline_and_records_who_and_why(store):
    first = judge_and_save(make_run("1111111111", qs=QS, started=0), store=store)
    dropped = judge_and_save(make_run("1111100000", qs=QS, started=1), store=store)
    (report,) = dropped.reports
    assert report.verdict.kind is VerdictKind.REGRESSION
    again = judge_and_save(make_run("1111100000", qs=QS, started=2), store=store)
    assert again.reports[0].verdict.baseline_run_id == first.reports[0].run.run_id
    summary = store.accept(report.run.run_id, "  new chunking ", "ana")
    assert summary.accepted and summary.acceptance.by == "ana"
    assert summary.acceptance.reason == "new chunking"
    assert store.get_stored(report.run.run_id).acceptance == summary.acceptance
    after = judge_and_save(make_run("1111100000", qs=QS, started=3), store=store)
    assert after.reports[0].verdict.kind is VerdictKind.PASS
    assert after.reports[0].verdict.baseline_run_id == report.run.run_id
    with pytest.raises(InputError, match="--reason"):
        store.accept(report.run.run_id, " ", "ana")


def test_a_pin_overrides_an_accepted_run(store):
    pinned = judge_and_save(make_run("1111111111", qs=QS, started=0), store=store)
    store.pin(pinned.reports[0].run.run_id)
    judge_and_save(make_run("1111111100", qs=QS, started=1), store=store)  # passes
    current = make_run("1111111100", qs=QS, started=2)
    assert store.find_baseline(current).run_id == pinned.reports[0].run.run_id
    assert store.drift_reference(current) is None  # the pin is the reference itself


def _steps(store, codes: list[str], thresholds: Thresholds):
    return [
        judge_and_save(make_run(c, qs=QS, started=m), store=store, thresholds=thresholds)
        .reports[0].verdict
        for m, c in enumerate(codes)
    ]  # fmt: skip


WALK_DOWN = ["1111111111", "1111111110", "1111111100", "1111111000", "1111110000"]


def test_slow_drift_over_accepted_runs_is_warned_then_failed_with_max_drift(store):
    """Each step loses one question of ten (0.1, not more than 0.1): each passes, but the
    drift from the best accepted run grows to 0.4."""
    verdicts = _steps(store, WALK_DOWN, Thresholds())
    assert [v.kind for v in verdicts] == [VerdictKind.NO_BASELINE] + [VerdictKind.PASS] * 4
    drift = [d for d in verdicts[-1].deltas if d.group == "drift" and d.metric == "top1_hit_rate"]
    assert len(drift) == 1 and drift[0].baseline == 1.0 and drift[0].current == 0.6
    assert any(w.startswith("slow drift: top-1 fell 0.400") for w in verdicts[-1].warnings)
    assert not any("slow drift" in w for w in verdicts[1].warnings)  # 0.1 is not more


def test_max_drift_fails_the_gate(store_url):
    with RunStore.open(store_url) as store:
        verdicts = _steps(store, WALK_DOWN[:3], Thresholds(max_drift=0.15))
    assert [v.kind for v in verdicts] == [
        VerdictKind.NO_BASELINE, VerdictKind.PASS, VerdictKind.REGRESSION,
    ]  # fmt: skip
    assert "drifted 0.200 since run" in verdicts[-1].reasons[0]
    assert verdicts[-1].drift_reference_run_id is not None


def test_accepting_a_run_restarts_the_drift_reference(store):
    verdicts = _steps(store, WALK_DOWN[:3], Thresholds())
    newest = store.list_runs(limit=1)[0]
    store.accept(newest.run_id, "the lost questions were reviewed", "ana")
    current = make_run(WALK_DOWN[3], qs=QS, started=9)
    reference = store.drift_reference(current)
    assert reference is not None and reference.run_id == newest.run_id
    assert verdicts[-1].kind is VerdictKind.PASS


def test_plugin_targets_are_separate_lineages(store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    def run(target: str, minute: int):
        return replace(make_run("1111111111", qs=QS, started=minute), retriever_target=target)

    a = judge_and_save(run("bm25:a", 0), store=store).reports[0].run.run_id
    judge_and_save(run("bm25:b", 1), store=store)
    same = run(f"bm25:{tmp_path / 'a'}", 2)
    assert store.find_baseline(same).run_id == a
    assert store.get_stored(a).lineage == f"plugin:bm25:{tmp_path / 'a'}"
