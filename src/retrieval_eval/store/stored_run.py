"""A stored run as the judge and the views read it back: the run, the verdict it was
given, its pin and a person's acceptance; and which stored runs may be a baseline."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from retrieval_eval.records import RunResult, RunState


@dataclass(frozen=True, slots=True)
class Acceptance:
    """A person's acceptance of a run as a baseline (``reval runs accept``)."""

    at: datetime
    by: str
    reason: str


@dataclass(frozen=True, slots=True)
class StoredRun:
    """A run as stored: with the verdict it was given when saved and its pin."""

    run: RunResult
    #: The verdict it was given, as JSON (``retrieval_eval.regression.stored`` reads it);
    #: None when saved without a regression check (or before verdicts were stored).
    verdict_document: str | None
    pinned: bool = False
    lineage: str = ""
    acceptance: Acceptance | None = None
    #: Its question and error counts as stored, when it was read without its outcomes
    #: (``run.questions`` is then empty); None when the outcomes were read.
    counts: tuple[int, int] | None = None


#: Stored verdicts that make a complete run a baseline by themselves. A run saved without
#: a check ("": ``RunStore.save(run)`` from a script) is not among them: nothing says it
#: did not regress, so it must not become the bar the next run is held to.
ACCEPTING_VERDICTS = ("pass", "no-baseline")


def is_accepted(state: RunState, verdict_kind: str, acceptance: Acceptance | None) -> bool:
    """A run that may be a baseline: complete, and judged pass or no-baseline, or accepted
    by a person (``reval runs accept``; the store upgrade of revision 0006 accepted the
    unjudged runs stored before it, which were baselines then). A run judged regression,
    incomparable or incomplete, or never judged, never becomes a baseline by itself:
    retrying a failed gate fails again. (``store.queries.accepted_clause`` is the same
    rule in SQL.)"""
    if state is not RunState.COMPLETE:
        return False
    return acceptance is not None or verdict_kind in ACCEPTING_VERDICTS
