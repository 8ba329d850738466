"""The steps of ``reval eval`` after measuring: baseline, verdict, save; store failures
are collected, not raised, so that the measured runs are always reported first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from retrieval_eval.errors import StoreError
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records import RunResult, RunState
from retrieval_eval.regression.types import Thresholds, Verdict
from retrieval_eval.report.model import RunReport, run_title


@dataclass(frozen=True, slots=True)
class ChosenBaseline:
    """``--baseline RUN`` loaded before measuring (or the store error that prevented it)."""

    run: RunResult | None = None
    given: bool = False
    store_error: StoreError | None = None


@dataclass(slots=True)
class Outcome:
    reports: list[RunReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    store_error: StoreError | None = None
    interrupted: bool = False


def load_sets(sources: Sequence[str]) -> list[GoldenQuestionSet]:
    """Each source is a set file, a directory of set files, or a registered set name."""
    from retrieval_eval.questions.loading import load_question_sets

    return [qs for source in sources for qs in load_question_sets(source)]


def open_baseline(db_url: str | None, baseline_id: str | None) -> ChosenBaseline:
    """Load ``--baseline`` up front: an unknown RUN is bad input before anything is measured;
    an unreachable store is remembered and reported after the runs."""
    if baseline_id is None:
        return ChosenBaseline()
    from retrieval_eval.store import RunStore

    try:
        with RunStore.open(db_url) as store:
            return ChosenBaseline(store.get(baseline_id), given=True)
    except StoreError as e:
        return ChosenBaseline(None, given=True, store_error=e)


def judge_and_save(
    runs: Sequence[RunResult],
    baseline: ChosenBaseline,
    thresholds: Thresholds,
    db_url: str | None,
    *,
    save: bool,
) -> Outcome:
    """Judge every run against its baseline and save it (unless ``save`` is False).

    After the first store failure the store is left alone: the remaining runs are
    reported unsaved and unjudged, and ``Outcome.store_error`` says why.
    """
    from retrieval_eval.store import RunStore

    outcome = Outcome(interrupted=any(r.state is RunState.INTERRUPTED for r in runs))
    store = None
    try:
        if baseline.store_error is not None:
            raise baseline.store_error
        store = RunStore.open(db_url)
        for run in runs:
            outcome.reports.append(_judge_and_save_one(store, run, baseline, thresholds, save))
    except StoreError as e:
        outcome.store_error = e
        done = len(outcome.reports)
        outcome.reports += [RunReport(run) for run in runs[done:]]
        what = "not saved and not judged" if save else "not judged"
        names = ", ".join(run_title(run) for run in runs[done:])
        outcome.warnings.append(f"run store failed ({e}); {what}: {names}")
    finally:
        if store is not None:
            store.close()
    return outcome


def _judge_and_save_one(
    store: object, run: RunResult, baseline: ChosenBaseline, thresholds: Thresholds, save: bool
) -> RunReport:
    from retrieval_eval.regression import judge

    verdict: Verdict | None = None
    if run.state is not RunState.INTERRUPTED:
        base = baseline.run if baseline.given else store.find_baseline(run)  # type: ignore[attr-defined]
        verdict = judge(run, base, thresholds)
    if save:
        run = replace(run, run_id=store.save(run))  # type: ignore[attr-defined]
    return RunReport(run, verdict)
