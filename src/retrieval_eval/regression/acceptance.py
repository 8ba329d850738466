"""Whether a judged run becomes an accepted baseline, and how: the rule that a loose
option, a borrowed baseline or a failing verdict never moves the bar.

A run is accepted by its verdict only when it is complete and either passed, under
thresholds no looser than its lineage's own (``regression.gate``), against a baseline of
its own lineage (a stored run, or a baseline file of the lineage), or is the first run of
its lineage (no baseline, and none required; the store decides "first" in the
transaction that saves it). Anything else is stored with its verdict and the reasons it
was not accepted; ``reval runs accept RUN --reason TEXT`` accepts it on purpose.
"""

from __future__ import annotations

from dataclasses import replace

from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.gate import Gate, loosened, thresholds_record
from retrieval_eval.regression.verdict_records import Verdict, VerdictKind
from retrieval_eval.retrievers.lineage import lineage_of
from retrieval_eval.store.stored_run import Accepted, HowAccepted


def run_lineage(run: RunResult) -> str:
    return lineage_of(run.retriever_target, run.retriever.identifier)


def decide(
    run: RunResult,
    verdict: Verdict,
    gate: Gate,
    baseline: RunResult | None,
    *,
    baseline_lineage: str | None = None,
    baseline_label: str | None = None,
) -> tuple[Verdict, Accepted | None]:
    """(the verdict with ``not_accepted`` filled in, how the run is accepted or None).

    ``baseline_lineage`` is the baseline's lineage when known (a baseline file records
    it), else computed from the baseline; ``baseline_label`` names it in the record
    (default: its run id)."""
    if verdict.kind not in (VerdictKind.PASS, VerdictKind.NO_BASELINE):
        return verdict, None
    thresholds, own = gate.effective(run), gate.own(run)
    why = [f"{line} ({gate.own_source(run)})" for line in loosened(thresholds, own,
                                                                   len(run.questions))]  # fmt: skip
    if not run.complete:
        why.append(f"it has {run.error_count} errored questions: only a complete run "
                   "becomes a baseline")  # fmt: skip
    if verdict.kind is VerdictKind.NO_BASELINE and verdict.baseline_required:
        why.append("--require-baseline: no baseline was found, so the run does not become "
                   "its lineage's first")  # fmt: skip
    mine = run_lineage(run)
    if baseline is not None:
        theirs = baseline_lineage or run_lineage(baseline)
        if theirs != mine or baseline.set_name != run.set_name:
            named = baseline.run_id or "(unsaved)"
            why.append(f"baseline {named} is of another lineage ({baseline.set_name} × "
                       f"{theirs}, not {run.set_name} × {mine})")  # fmt: skip
    if why:
        return replace(verdict, not_accepted=tuple(why)), None
    record = thresholds_record(thresholds)
    if verdict.kind is VerdictKind.NO_BASELINE:
        return verdict, Accepted(HowAccepted.FIRST_RUN, record)
    assert baseline is not None
    return verdict, Accepted(HowAccepted.JUDGED_PASS, record, baseline_label or baseline.run_id)
