"""What follows a measurement, in one call: find each run's baseline, judge it, save it.

``reval eval``, the quickstart and scripts all use ``judge_and_save``, so they cannot
drift apart. The baseline is ``baseline_id`` or a baseline file when given, else the
pinned run of the same set and lineage, else its newest accepted run; it is found before
the run is saved, so a run is never its own baseline. Whether the saved run becomes an
accepted baseline is ``regression.acceptance``'s rule: a run judged regression,
incomparable or incomplete, or a pass under loosened thresholds or against another
lineage, is saved but never becomes a baseline by itself, so retrying a failed gate
fails again; ``reval runs accept`` accepts an intended drop. Of two first runs of a
lineage at once, the store accepts one; the other is judged against it. A run whose
errored questions exceed the error budget is judged INCOMPLETE without a baseline. An
interrupted run is saved but not judged. Slow drift is measured against the lineage's
drift reference (see ``regression.drift``). ``RunStore.judging_runs`` finds and loads
both in one read, each run once.

Store failures are collected, not raised: the measured runs must reach the report first.
After the first failure the store is left alone; the remaining runs are reported unsaved
(with an INCOMPLETE verdict where it applies, which needs no store).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from retrieval_eval.errors import StoreError
from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.regression.gate import Gate, ThresholdChoice
from retrieval_eval.regression.unjudged import SetJudgments
from retrieval_eval.regression.verdict import incomplete_verdict, judge
from retrieval_eval.regression.verdict_records import RunReport, Thresholds, Verdict, VerdictKind

if TYPE_CHECKING:  # the store (SQLAlchemy) is imported when a run is saved, not before
    from retrieval_eval.regression.baseline_file import BaselineFile
    from retrieval_eval.store.store import RunStore
    from retrieval_eval.store.stored_run import Accepted


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
        """A regression, an incomparable baseline, or no baseline where one is required
        (exit 1 with --fail-on-regression)."""
        return any(_kind(r) in (VerdictKind.REGRESSION, VerdictKind.INCOMPARABLE)
                   or (r.verdict is not None and r.verdict.missing_required_baseline)
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
    gate: Gate | None = None,
    baseline_file: BaselineFile | None = None,
    require_baseline: bool = False,
    judgments: Sequence[SetJudgments] = (),
) -> Recorded:
    """Judge every run (one, or several) against its baseline and save it (unless
    ``save`` is False), accepted as a baseline only as ``regression.acceptance`` allows.

    ``store`` is an open ``RunStore`` (left open), a database URL, or None for
    $REVAL_DATABASE_URL, else the default SQLite file (opened and closed here; never
    opened when nothing is saved and ``baseline_file`` is the baseline).
    ``baseline_id`` (an id or unique prefix) is every run's baseline instead of the
    pinned or newest accepted one; ``baseline_file`` likewise, read from a file.
    ``gate`` gives each run's lineage's own thresholds and the options over them, as
    ``reval eval`` reads them; without it, ``thresholds`` (else the defaults) are the
    lineage's own: a caller that passes its thresholds states its policy.
    ``require_baseline`` makes NO-BASELINE a failing verdict. ``judgments`` are the
    labels of the sets the runs were scored on (``SetJudgments.of``): with them each
    verdict says which lost hits rest on unjudged documents.
    """
    if gate is None:
        gate = Gate() if thresholds is None else Gate(table=_given(thresholds))
    if isinstance(runs, RunResult):
        runs = (runs,)
    judging = _Judging(gate, baseline_id, baseline_file, require_baseline, save, tuple(judgments))
    reports: list[RunReport] = []
    try:
        if baseline_file is not None and not save:
            reports += [judging.one(None, run) for run in runs]
        elif store is not None and not isinstance(store, str):
            for run in runs:
                reports.append(judging.one(store, run))
        else:
            # SQLAlchemy only when a store is opened here, from its URL
            from retrieval_eval.store.store import RunStore

            with RunStore.open(store) as opened:
                for run in runs:
                    reports.append(judging.one(opened, run))
    except StoreError as e:
        rest = runs[len(reports) :]
        reports += [RunReport(run, incomplete_verdict(run, gate.effective(run))) for run in rest]
        what = "not saved and not judged" if save else "not judged"
        names = ", ".join(f"{run.set_name} × {run.retriever.identifier}" for run in rest)
        return Recorded(tuple(reports), (f"run store failed ({e}); {what}: {names}",), e)
    return Recorded(tuple(reports))


def _given(thresholds: Thresholds) -> ThresholdChoice:
    """Explicit ``thresholds`` as a source of them: every one of them given."""
    return ThresholdChoice(**{f.name: getattr(thresholds, f.name) for f in fields(thresholds)})


@dataclass(frozen=True, slots=True)
class _Judging:
    gate: Gate
    baseline_id: str | None
    baseline_file: BaselineFile | None
    require_baseline: bool
    save: bool
    judgments: tuple[SetJudgments, ...] = ()

    def labels(self, run: RunResult) -> SetJudgments | None:
        """The labels ``run`` was scored on, when given."""
        return next((j for j in self.judgments if j.covers(run.set_name, run.set_fingerprint)),
                    None)  # fmt: skip

    def one(self, store: RunStore | None, run: RunResult) -> RunReport:
        if run.state is RunState.INTERRUPTED:
            if self.save and store is not None:
                run = replace(run, run_id=store.save(run, None))
            return RunReport(run, None)
        verdict, accepted = self._judged(store, run)
        if not self.save or store is None:
            return RunReport(run, verdict)
        from retrieval_eval.store.stored_run import FirstRunRaced

        try:
            run_id = store.save(run, verdict, accepted)
        except FirstRunRaced as raced:  # another first run of the lineage was stored first
            verdict, accepted = self._judged(store, run, raced.winner)
            run_id = store.save(run, verdict, accepted)
        return RunReport(replace(run, run_id=run_id), verdict, accepted=accepted)

    def _judged(
        self, store: RunStore | None, run: RunResult, raced_by: str | None = None
    ) -> tuple[Verdict, Accepted | None]:
        from retrieval_eval.regression.acceptance import decide

        thresholds = self.gate.effective(run)
        verdict = incomplete_verdict(run, thresholds)
        if verdict is not None:
            return verdict, None
        file, lineage, label = self.baseline_file, None, None
        baseline: RunResult | None
        if file is not None and raced_by is None:
            baseline, lineage, label = file.run, file.lineage, file.label
            verdict = _against_file(run, file, thresholds, self.labels(run))
        else:
            assert store is not None
            baseline, reference = store.judging_runs(run, raced_by or self.baseline_id)
            verdict = judge(run, baseline, thresholds, reference, self.labels(run))
        verdict = replace(verdict, baseline_required=self.require_baseline,
                          baseline_file=None if file is None else str(file.path))  # fmt: skip
        if raced_by is not None:
            note = (f"another first run of this lineage, {raced_by}, was stored while this "
                    "one ran: judged against it, not accepted as a first run too")  # fmt: skip
            verdict = replace(verdict, warnings=(note, *verdict.warnings))
        return decide(run, verdict, self.gate, baseline, baseline_lineage=lineage,
                      baseline_label=label)  # fmt: skip


def _against_file(
    run: RunResult, file: BaselineFile, thresholds: Thresholds, judged: SetJudgments | None
) -> Verdict:
    """The verdict against a baseline file: INCOMPARABLE unless it is of ``run``'s set and
    lineage (never a pass against another retriever's numbers)."""
    from retrieval_eval.regression.acceptance import run_lineage

    mine = run_lineage(run)
    if file.lineage != mine or file.run.set_name != run.set_name:
        reason = (f"baseline file {file.path} holds run {file.run.run_id} of "
                  f"{file.run.set_name} × {file.lineage}, not of {run.set_name} × {mine}: "
                  "numbers are not compared")  # fmt: skip
        return Verdict(VerdictKind.INCOMPARABLE, baseline_run_id=file.run.run_id,
                       reasons=(reason,), thresholds=thresholds,
                       incomparable_parts=("lineage",))  # fmt: skip
    return judge(run, file.run, thresholds, judged=judged)
