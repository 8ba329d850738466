"""What follows a measurement, in one call: find each run's baseline, judge it, save it.

``reval eval``, the quickstart and scripts all use ``judge_and_save``, so they cannot
drift apart. The baseline is ``baseline_id`` when given, else the pinned run of the same
set and lineage, else its newest accepted run; it is found before the run is saved, so a
run is never its own baseline. A run judged regression, incomparable or incomplete is
saved but never becomes a baseline by itself, so retrying a failed gate fails again;
``reval runs accept`` accepts an intended drop. A run whose errored questions exceed the
error budget is judged INCOMPLETE without a baseline. An interrupted run is saved but not
judged. Slow drift is measured against the lineage's drift reference (see
``regression.drift``). ``RunStore.judging_runs`` finds and loads both in one read, each
run once.

Store failures are collected, not raised: the measured runs must reach the report first.
After the first failure the store is left alone; the remaining runs are reported unsaved
(with an INCOMPLETE verdict where it applies, which needs no store).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from retrieval_eval.errors import StoreError
from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.regression.verdict import incomplete_verdict, judge
from retrieval_eval.regression.verdict_records import RunReport, Thresholds, Verdict, VerdictKind

if TYPE_CHECKING:  # the store (SQLAlchemy) is imported when a run is saved, not before
    from retrieval_eval.store.store import RunStore


@dataclass(frozen=True, slots=True)
class Recorded:
    """The judged runs (saved ones carry their ``run_id``), and what went wrong."""

    reports: tuple[RunReport, ...]
    #: One line each, for the report's warnings (e.g. the runs a store failure left unsaved).
    warnings: tuple[str, ...] = ()
    #: The store failure that stopped saving and judging, if any.
    store_error: StoreError | None = None

    @property
    def verdicts(self) -> tuple[Verdict | None, ...]:
        """Each run's verdict, in run order (None: interrupted, or not judged)."""
        return tuple(r.verdict for r in self.reports)

    @property
    def incomplete(self) -> tuple[RunReport, ...]:
        """Runs whose errors exceed the budget: a gate must fail on these (exit 3)."""
        return tuple(r for r in self.reports if _kind(r) is VerdictKind.INCOMPLETE)

    @property
    def interrupted(self) -> bool:
        return any(r.run.state is RunState.INTERRUPTED for r in self.reports)

    @property
    def regressed(self) -> bool:
        """A regression or an incomparable baseline (exit 1 with --fail-on-regression)."""
        return any(_kind(r) in (VerdictKind.REGRESSION, VerdictKind.INCOMPARABLE)
                   for r in self.reports)  # fmt: skip


def _kind(report: RunReport) -> VerdictKind | None:
    return None if report.verdict is None else report.verdict.kind


def judge_and_save(
    runs: RunResult | Sequence[RunResult],
    *,
    store: RunStore | str | None = None,
    thresholds: Thresholds | None = None,
    baseline_id: str | None = None,
    save: bool = True,
) -> Recorded:
    """Judge every run (one, or several) against its baseline and save it (unless
    ``save`` is False).

    ``store`` is an open ``RunStore`` (left open), a database URL, or None for
    $REVAL_DATABASE_URL, else the default SQLite file (opened and closed here).
    ``baseline_id`` (an id or unique prefix) is every run's baseline instead of the
    pinned or newest accepted one.
    """
    thresholds = thresholds or Thresholds()
    if isinstance(runs, RunResult):
        runs = (runs,)
    reports: list[RunReport] = []
    try:
        if store is not None and not isinstance(store, str):
            for run in runs:
                reports.append(_judge_and_save_one(store, run, thresholds, baseline_id, save))
        else:
            # SQLAlchemy only when a store is opened here, from its URL
            from retrieval_eval.store.store import RunStore

            with RunStore.open(store) as opened:
                for run in runs:
                    reports.append(_judge_and_save_one(opened, run, thresholds, baseline_id, save))
    except StoreError as e:
        rest = runs[len(reports) :]
        reports += [RunReport(run, incomplete_verdict(run, thresholds)) for run in rest]
        what = "not saved and not judged" if save else "not judged"
        names = ", ".join(f"{run.set_name} × {run.retriever.identifier}" for run in rest)
        return Recorded(tuple(reports), (f"run store failed ({e}); {what}: {names}",), e)
    return Recorded(tuple(reports))


def _judge_and_save_one(
    store: RunStore, run: RunResult, thresholds: Thresholds, baseline_id: str | None, save: bool
) -> RunReport:
    verdict = None
    if run.state is not RunState.INTERRUPTED:
        verdict = incomplete_verdict(run, thresholds)
        if verdict is None:
            baseline, reference = store.judging_runs(run, baseline_id)
            verdict = judge(run, baseline, thresholds, reference)
    if save:
        run = replace(run, run_id=store.save(run, verdict))
    return RunReport(run, verdict)
