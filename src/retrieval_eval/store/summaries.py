"""What run listings return: a run's identity and headline numbers, without outcomes.
(``Acceptance``, ``StoredRun`` and ``is_accepted`` live in ``store.stored_run``, which
evaluating imports.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from retrieval_eval.records.run import RunState
from retrieval_eval.store.stored_run import (
    Acceptance,
    Accepted,
    is_accepted,
)

__all__ = ["RunSummary"]


@dataclass(frozen=True, slots=True)
class RunSummary:
    run_id: str
    set_name: str
    set_fingerprint: str
    retriever_identifier: str
    retriever_version: str
    retriever_target: str
    state: RunState
    started_at: datetime
    finished_at: datetime
    question_count: int
    error_count: int
    #: Over answered questions; None when the run measured nothing.
    top1_hit_rate: float | None
    top3_hit_rate: float | None
    pinned: bool = False
    labels: Mapping[str, str] = field(default_factory=dict)
    #: What tells runs of one retriever identifier apart (see
    #: ``RetrieverDescription.variant_label``).
    variant: str = ""
    #: The stored verdict's kind and baseline ("" / None: saved without a check, i.e.
    #: unjudged: no baseline unless accepted or pinned).
    verdict_kind: str = ""
    baseline_run_id: str | None = None
    #: Which runs share a baseline and a history (``retrieval_eval.retrievers.lineage``).
    lineage: str = ""
    #: Set when a person accepted the run (``reval runs accept``).
    acceptance: Acceptance | None = None
    #: How the run became accepted (None: it is not).
    how_accepted: Accepted | None = None

    @property
    def accepted(self) -> bool:
        """Can be a baseline without a pin (see ``is_accepted``)."""
        return is_accepted(self.state, self.how_accepted)
