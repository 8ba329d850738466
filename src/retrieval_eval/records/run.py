"""One set measured against one retriever: what was measured (``RetrieverDescription``),
how far the run got (``RunState``) and the run itself (``RunResult``), as the store keeps
it and verdicts compare it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.failures import SKIPPED_MEMBER_NOTE, FailureKind, RetrievalFailure
from retrieval_eval.records.json_shape import run_to_dict
from retrieval_eval.records.metrics import GroupMetrics, LatencySummary, MeasureMean
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.parameters import RunParameters


@dataclass(frozen=True, slots=True)
class RetrieverDescription:
    """What is being measured (the answer to Describe)."""

    identifier: str
    version: str = ""
    chunk_separator: str = ""
    corpus_revision: str = ""
    model_revision: str = ""
    chunking: str = ""
    pipeline: str = ""
    metadata: Mapping[str, str] = field(default_factory=dict)

    def variant_label(self, target: str = "") -> str:
        """What tells runs of one identifier apart, for people: version, model, chunking
        and where it ran (an index path or address), e.g.
        ``bm25 0.1.0 · chunking words=50 · bm25:small-chunks``."""
        parts = [f"{self.identifier} {self.version}".strip()]
        parts += [f"model {self.model_revision}"] if self.model_revision else []
        parts += [f"chunking {self.chunking}"] if self.chunking else []
        parts += [target] if target and target != self.identifier else []
        return " · ".join(parts)


class RunState(StrEnum):
    """How far a run got; only a complete run can become a baseline by itself."""

    COMPLETE = "complete"  # every question answered
    INCOMPLETE = "incomplete"  # some retrievals failed; rates are over answered questions
    INTERRUPTED = "interrupted"  # stopped by the user; what was measured is kept


@dataclass(frozen=True, slots=True, repr=False)
class RunResult:
    """One set measured against one retriever: what was asked, every question's outcome,
    the aggregate rates with their intervals, breakdowns by form and hard class, and
    latency. Runs are what the store keeps and verdicts compare."""

    set_name: str
    set_fingerprint: str
    retriever_target: str
    retriever: RetrieverDescription
    parameters: RunParameters
    started_at: datetime
    finished_at: datetime
    state: RunState
    metrics: GroupMetrics
    by_form: Mapping[str, GroupMetrics]
    by_hard_class: Mapping[str, GroupMetrics]
    latency: LatencySummary | None
    #: In question order. A run the coordinator or the store made holds them by column
    #: (``retrieval_eval.outcomes.compact.CompactOutcomes``); any sequence of outcomes will do.
    questions: Sequence[QuestionOutcome]
    underfilled_count: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)
    #: Assigned by the run store when saved.
    run_id: str | None = None
    #: Unloaded latency: questions re-asked one at a time after the run (``latency`` is
    #: measured under the run's concurrency, queueing included). None without a probe.
    latency_probe: LatencySummary | None = None
    #: The IR measures asked for (``reval eval --measures``), by ir_measures name, and
    #: the no-answer convention of their means: "reval" or "trec_eval".
    measures: Mapping[str, MeasureMean] = field(default_factory=dict)
    measure_convention: str = "reval"
    #: Question id -> every judged document and its grade (0 = judged not relevant), for
    #: the questions whose labels say more than their expected ids
    #: (``GoldenQuestion.judgments``); any other question: each expected document at
    #: grade 1, nothing else judged (``grades_of``).
    judgments: Mapping[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    #: The grade a document needed to be expected (the set's, or ``--rel-level``).
    relevance_level: int = 1

    @property
    def complete(self) -> bool:
        return self.state is RunState.COMPLETE

    @property
    def error_count(self) -> int:
        return sum(1 for _ in _failures(self.questions))

    @property
    def skipped_members(self) -> dict[str, int]:
        """A fused run's members by the number of scored questions each was skipped on
        (``on_member_error = "skip"``), from the questions' notes; empty otherwise."""
        counts: dict[str, int] = {}
        for notes in _notes(self.questions):
            for note in notes:
                if note.startswith(SKIPPED_MEMBER_NOTE):
                    name = note[len(SKIPPED_MEMBER_NOTE) :].split(": ", 1)[0]
                    counts[name] = counts.get(name, 0) + 1
        return counts

    @property
    def not_asked_count(self) -> int:
        """Questions never asked: the run stopped asking once its errors exceeded the
        budget (they are among ``error_count``)."""
        kind = FailureKind.NOT_ASKED
        return sum(1 for error in _failures(self.questions) if error.kind == kind)

    def grades_of(self, outcome: QuestionOutcome) -> dict[str, int]:
        """Document id -> grade of every document judged for ``outcome``'s question."""
        judged = self.judgments.get(outcome.question_id)
        if judged is not None:
            return dict(judged)
        return dict.fromkeys(outcome.expected_document_ids, 1)

    def to_dict(self) -> dict[str, Any]:
        """The run as the JSON report holds it (``regression`` is null: a verdict is not
        part of the run; ``RunReport.to_dict`` adds it)."""
        return run_to_dict(self)

    def __repr__(self) -> str:
        """One line a notebook can show: what, state, the two headline rates, errors."""
        version = f" {self.retriever.version}" if self.retriever.version else ""
        rates = " ".join(
            f"{name}={_rate_text(self.metrics, key)}"
            for name, key in (("top1", TOP1_HIT_RATE), ("top3", TOP3_HIT_RATE))
        )
        return (
            f"<RunResult {self.set_name!r} × {self.retriever.identifier + version!r} "
            f"{self.state.value} {rates} errors={self.error_count} "
            f"questions={len(self.questions)} run_id={self.run_id}>"
        )


def _failures(questions: Sequence[QuestionOutcome]) -> Iterable[RetrievalFailure]:
    """The errors among ``questions``; read from the column when they are held by column,
    without building every outcome."""
    failures = getattr(questions, "failures", None)
    if failures is not None:
        found: Iterator[RetrievalFailure] = failures()
        return found
    return (q.error for q in questions if q.error is not None)


def _notes(questions: Sequence[QuestionOutcome]) -> Iterable[tuple[str, ...]]:
    """The notes of ``questions`` that have any (by column when they are held so)."""
    all_notes = getattr(questions, "all_notes", None)
    if all_notes is not None:
        found: Iterator[tuple[str, ...]] = all_notes()
        return found
    return (q.notes for q in questions if q.notes)


def _rate_text(metrics: GroupMetrics, key: str) -> str:
    estimate = metrics.intervals.get(key)
    if estimate is None:
        return "-"
    return f"{estimate.rate:.3f}({estimate.successes}/{estimate.count})"
