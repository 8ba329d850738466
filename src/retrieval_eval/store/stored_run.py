"""A stored run as the judge and the views read it back: the run, the verdict it was
given, its pin, how it was accepted as a baseline; and which stored runs may be one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from retrieval_eval.records.run import RunResult, RunState


@dataclass(frozen=True, slots=True)
class Acceptance:
    """A person's acceptance of a run as a baseline (``reval runs accept``)."""

    at: datetime
    by: str
    reason: str


class HowAccepted(StrEnum):
    """How a run became accepted (a baseline without a pin), as ``accepted_how`` stores it."""

    #: Judged pass under thresholds no looser than its lineage's own, against a baseline
    #: of its own lineage (a stored run, or a baseline file of the lineage).
    JUDGED_PASS = "judged-pass"
    #: The first accepted run of its lineage (no baseline), decided in one transaction.
    FIRST_RUN = "first-run"
    #: A person accepted it (``reval runs accept``: who, when and why in ``Acceptance``).
    PERSON = "person"
    #: Pinned (``reval runs pin``) and not accepted otherwise; unpinning takes it back.
    PINNED = "pinned"
    #: Rescored on newer labels from a run that was accepted or pinned (``reval runs
    #: rescore``): the source's standing carried to the new labels.
    RESCORED = "rescored"


@dataclass(frozen=True, slots=True)
class Accepted:
    """How a run was accepted, and under what: the thresholds it was judged with (as
    ``Thresholds`` fields, JSON-ready) and the baseline it passed against (a run id, or
    ``FILE (run ID)`` for a baseline file); both None when a person accepted it."""

    how: HowAccepted
    thresholds: Mapping[str, Any] | None = None
    baseline: str | None = None


class FirstRunRaced(Exception):
    """Raised by ``RunStore.save`` for a run to be accepted as the first of its lineage
    when another accepted or pinned run of the lineage was stored first (two first runs
    at once): nothing was written; judge the run against ``winner`` and save it again."""

    def __init__(self, winner: str) -> None:
        super().__init__(winner)
        self.winner = winner


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
    #: How the run became accepted; None: it is not (unless pinned).
    accepted: Accepted | None = None
    #: Its question and error counts as stored, when it was read without its outcomes
    #: (``run.questions`` is then empty); None when the outcomes were read.
    counts: tuple[int, int] | None = None
    #: A rescored run's source (``reval runs rescore``): the source run's id and the label
    #: fingerprint it was scored on; None for a run whose retriever was asked.
    rescored_from: tuple[str, str] | None = None


def is_accepted(state: RunState, accepted: Accepted | None) -> bool:
    """A run that may be a baseline: complete, and accepted explicitly (``Accepted``:
    judged pass under its lineage's thresholds against its lineage, the first run of its
    lineage, or by a person with ``reval runs accept``). A pass under loosened options, a
    run judged regression, incomparable or incomplete, or never judged, never becomes a
    baseline by itself: retrying a failed gate fails again. (``store.queries.
    accepted_clause`` is the same rule in SQL.)"""
    return state is RunState.COMPLETE and accepted is not None
