"""The lines every format puts beside a verdict about its baseline: a change of variant
inside the lineage (a before/after comparison), the run drift was measured from, the
baseline file judged against, how the run was accepted as a baseline (or why not, and
the command that would accept it), and a person's acceptance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from retrieval_eval.regression.verdict_records import RunReport, Verdict
from retrieval_eval.store.stored_run import Acceptance, Accepted, HowAccepted


def variant_line(verdict: Verdict | None) -> str | None:
    """``before/after: chunking words=60,overlap=10 -> words=150,overlap=30``."""
    if verdict is None or not verdict.variant_change:
        return None
    return f"before/after: {verdict.variant_change}"


def acceptance_line(acceptance: Acceptance | None) -> str | None:
    """``accepted as a baseline by ana on 2026-12-01 10:02 UTC: new chunking``."""
    if acceptance is None:
        return None
    when = f"{acceptance.at:%Y-%m-%d %H:%M %Z}".strip()
    return f"accepted as a baseline by {acceptance.by} on {when}: {acceptance.reason}"


def acceptance_dict(acceptance: Acceptance | None) -> dict[str, str] | None:
    if acceptance is None:
        return None
    return {"by": acceptance.by, "at": acceptance.at.isoformat(), "reason": acceptance.reason}


def accepted_line(accepted: Accepted | None) -> str | None:
    """How the run became a baseline: ``accepted as a baseline: judged pass against run X
    under max_top1_drop 0.1, ...`` (a person's acceptance is ``acceptance_line``)."""
    if accepted is None or accepted.how is HowAccepted.PERSON:
        return None
    under = f" under {thresholds_text(accepted.thresholds)}" if accepted.thresholds else ""
    if accepted.how is HowAccepted.PINNED:
        return "accepted as a baseline: pinned (reval runs pin), until unpinned"
    if accepted.how is HowAccepted.FIRST_RUN:
        return f"accepted as a baseline: the first run of its lineage, judged{under}"
    if accepted.how is HowAccepted.RESCORED:  # the source's standing, on the new labels
        return (f"accepted as a baseline for these labels: rescored from {accepted.baseline}, "
                "which was one")  # fmt: skip
    return f"accepted as a baseline: judged pass against {accepted.baseline}{under}"


def accepted_dict(accepted: Accepted | None) -> dict[str, Any] | None:
    """``{"how", "thresholds", "baseline"}`` (the JSON ``acceptance`` key)."""
    if accepted is None:
        return None
    thresholds = None if accepted.thresholds is None else dict(accepted.thresholds)
    return {"how": accepted.how.value, "thresholds": thresholds, "baseline": accepted.baseline}


def thresholds_text(thresholds: Mapping[str, Any]) -> str:
    """``max_top1_drop 0.1, max_top3_drop 0.1, max_errors 0`` (unchecked ones left out)."""
    return ", ".join(f"{name} {_shown(value)}" for name, value in thresholds.items()
                     if value is not None)  # fmt: skip


def _shown(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def accept_command(run_id: str | None) -> str:
    """The command that accepts a run on purpose."""
    return f"reval runs accept {run_id or 'RUN'} --reason TEXT"


def not_accepted_lines(verdict: Verdict | None, run_id: str | None) -> list[str]:
    """Why a passing run did not become a baseline, then the command that would accept it
    (none for a run that was not saved)."""
    if verdict is None or not verdict.not_accepted:
        return []
    lines = [f"not accepted as a baseline: {why}" for why in verdict.not_accepted]
    if run_id:
        lines.append(f"to accept it on purpose: {accept_command(run_id)}")
    else:
        lines.append("not saved (--no-save): nothing to accept")
    return lines


def notes(
    verdict: Verdict | None,
    acceptance: Acceptance | None = None,
    *,
    accepted: Accepted | None = None,
    run_id: str | None = None,
) -> list[str]:
    """Every line that applies, in report order."""
    lines = [variant_line(verdict)]
    if verdict is not None and verdict.drift_reference_run_id:
        lines.append(f"drift measured from run {verdict.drift_reference_run_id}")
    if verdict is not None and verdict.baseline_file:
        lines.append(f"baseline file: {verdict.baseline_file}")
    if verdict is not None and verdict.missing_required_baseline:
        lines.append("no baseline and --require-baseline: the gate fails")
    lines += [accepted_line(accepted), acceptance_line(acceptance)]
    lines += not_accepted_lines(verdict, run_id)
    return [line for line in lines if line]


def report_notes(report: RunReport) -> list[str]:
    """``notes`` for one reported run."""
    return notes(report.verdict, report.acceptance, accepted=report.accepted,
                 run_id=report.run.run_id)  # fmt: skip
