"""What run listings return: a run's identity and headline numbers, without outcomes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from retrieval_eval.records import RunState


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
