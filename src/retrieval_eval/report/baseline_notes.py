"""The lines every format puts beside a verdict about its baseline: a change of variant
inside the lineage (a before/after comparison), the run drift was measured from, and a
person's acceptance of the run as a baseline."""

from __future__ import annotations

from retrieval_eval.regression.verdict_records import Verdict
from retrieval_eval.store.stored_run import Acceptance


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


def notes(verdict: Verdict | None, acceptance: Acceptance | None = None) -> list[str]:
    """Every line that applies, in report order."""
    lines = [variant_line(verdict), acceptance_line(acceptance)]
    if verdict is not None and verdict.drift_reference_run_id:
        lines.insert(1, f"drift measured from run {verdict.drift_reference_run_id}")
    return [line for line in lines if line]
