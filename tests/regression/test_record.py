"""judge_and_save on a real SQLite store: baselines, the error budget, store failures."""

from __future__ import annotations

from pathlib import Path

from support.factory import make_run, question_set

from retrieval_eval import judge_and_save, render
from retrieval_eval.errors import StoreError
from retrieval_eval.regression.verdict_records import ErrorBudget, Thresholds, VerdictKind
from retrieval_eval.store.store import RunStore


def test_each_run_is_judged_against_the_latest_complete_one_then_saved(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    qs = question_set(10)
    first = judge_and_save(make_run("1111111111", qs=qs, started=0), store=db)
    assert first.verdicts[0] is not None and first.verdicts[0].kind is VerdictKind.NO_BASELINE
    base_id = first.reports[0].run.run_id
    broken = judge_and_save(make_run("11E1111111", qs=qs, started=1), store=db)
    assert broken.verdicts[0] is not None
    assert broken.verdicts[0].kind is VerdictKind.INCOMPLETE and broken.incomplete
    worse = make_run("0000011111", qs=qs, started=2)
    with RunStore.open(db) as store:  # an open store is used and left open
        judged = judge_and_save([worse], store=store)
        assert len(store.list_runs()) == 3  # the incomplete run was saved too
    (verdict,) = judged.verdicts
    assert verdict is not None and verdict.kind is VerdictKind.REGRESSION
    assert verdict.baseline_run_id == base_id  # not the incomplete run in between
    assert judged.regressed and not judged.incomplete
    assert "❌ regression" in render(judged, "markdown")


def test_the_error_budget_decides_whether_a_run_is_judged(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    run = make_run("11E1111111")
    lenient = Thresholds(max_errors=ErrorBudget.parse("10%"))
    judged = judge_and_save(run, store=db, thresholds=lenient, save=False)
    assert judged.verdicts[0] is not None and judged.verdicts[0].kind is VerdictKind.NO_BASELINE
    strict = judge_and_save(run, store=db, save=False)
    assert strict.verdicts[0] is not None and strict.verdicts[0].kind is VerdictKind.INCOMPLETE
    with RunStore.open(db) as store:
        assert store.list_runs() == []  # save=False


def test_a_store_failure_is_collected_and_the_runs_still_reported(tmp_path: Path) -> None:
    (tmp_path / "runs.sqlite").mkdir()  # a directory where the database file should be
    runs = [make_run("1111"), make_run("1E11", identifier="dense")]
    recorded = judge_and_save(runs, store=f"sqlite:///{tmp_path / 'runs.sqlite'}")
    assert [r.run.run_id for r in recorded.reports] == [None, None]
    kinds = [v.kind if v is not None else None for v in recorded.verdicts]
    assert kinds == [None, VerdictKind.INCOMPLETE]  # the budget needs no store
    assert "not saved and not judged" in recorded.warnings[0]
    assert isinstance(recorded.store_error, StoreError)
