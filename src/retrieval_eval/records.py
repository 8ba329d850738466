"""The values that flow through the pipeline: question forms, retriever identities,
per-question outcomes, rates, group metrics, run parameters, whole runs and the defaults.

The bottom layer beside ``errors``: it imports nothing else from the package, so every
layer above (questions, retrievers, scoring, evaluation, store, regression, report, cli)
can share these records without importing one another.

Produced by scoring and the coordinator, consumed by the store, regression and reports.
``RunResult.to_dict`` is the run's shape in the JSON report (documented in
``report/run/json_format.py``): the one serializer of a run, so that a script and the report
can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE, metric_sort_key

#: Bumped whenever the scoring protocol changes in a way that moves numbers;
#: part of the benchmark fingerprint, so runs across a change are not compared.
SCORING_PROTOCOL_VERSION = "1"
DEFAULT_TOP_K = 3
DEFAULT_OVERFETCH = 4
DEFAULT_KS = (1, 3)
DEFAULT_TIMEOUT_S = 10.0
#: Calls in flight per retriever.
DEFAULT_CONCURRENCY = 8
#: The hard-class group of questions that have none, in breakdowns and set summaries.
UNCLASSIFIED = "unclassified"


class Form(StrEnum):
    """How a question relates to the corpus.

    MATCH: phrased close to the text that answers it. GAP: phrased in the user's words,
    far from the text. UNLABELLED: the source never said (e.g. an imported BEIR set);
    reported apart, never passed off as MATCH or GAP.
    """

    MATCH = "MATCH"
    GAP = "GAP"
    UNLABELLED = "UNLABELLED"


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


class FailureKind(StrEnum):
    """Why a retrieval failed (the ``kind`` of a ``RetrieverError``, or the coordinator's)."""

    TIMEOUT = "timeout"
    UNAVAILABLE = "unavailable"
    REJECTED = "rejected"
    UNAUTHENTICATED = "unauthenticated"
    INTERNAL = "internal"
    #: The answer broke the retriever contract (empty, blank or oversized id, too many results,
    #: an unparsable or oversized message); never retried, never a miss.
    CONTRACT = "contract"
    CANCELLED = "cancelled"
    #: Never asked: the run's failures had already exceeded its error budget, so the
    #: coordinator stopped asking (fail fast). An error like any other, never a miss.
    NOT_ASKED = "not_asked"


#: How a fused ranking's note names a member that failed and was left out:
#: ``"skipped member NAME: KIND: DETAILS"`` (a name never holds ": ").
SKIPPED_MEMBER_NOTE = "skipped member "


@dataclass(frozen=True, slots=True)
class RetrievalFailure:
    """Why a question has no ranking. Never a miss."""

    kind: FailureKind
    message: str


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
    """One question's result in a run: its ranking (distinct documents), hits at each
    cut-off, latency, or the retrieval error that kept it from being scored (an error is
    never a miss)."""

    question_id: str
    form: Form
    hard_class: str | None
    expected_document_ids: tuple[str, ...]
    #: Result ids exactly as returned (chunk ids included), rank order.
    raw_ids: tuple[str, ...] = ()
    #: Distinct document ids after mapping and duplicate collapse, rank order.
    ranked_document_ids: tuple[str, ...] = ()
    #: k -> hit within the k best distinct documents. Empty when ``error`` is set.
    hits: Mapping[int, bool] = field(default_factory=dict)
    latency_ms: float | None = None
    error: RetrievalFailure | None = None
    #: The overfetched ranking held fewer distinct documents than the deepest k although
    #: the retriever returned a full ``limit``: the overfetch multiplier was too small.
    underfilled: bool = False
    #: The retriever's scores, aligned with ``raw_ids`` (None where a result had none);
    #: empty when it gave no scores at all.
    raw_scores: tuple[float | None, ...] = ()
    #: How the answer was made when that matters to reading it, e.g. a fused retriever's
    #: member skipped under ``on_member_error = "skip"``. Never changes the scoring.
    notes: tuple[str, ...] = ()
    #: What was asked: the question set's own string (shared, not copied). None for a
    #: run stored before question texts were kept.
    question_text: str | None = None

    @property
    def answered(self) -> bool:
        return self.error is None

    @property
    def top1_hit(self) -> bool | None:
        return self.hits.get(1) if self.answered else None

    @property
    def top3_hit(self) -> bool | None:
        return self.hits.get(3) if self.answered else None


@dataclass(frozen=True, slots=True)
class RateEstimate:
    """A proportion with its 95% interval (Wilson score interval)."""

    rate: float
    low: float
    high: float
    successes: int
    count: int


@dataclass(frozen=True, slots=True)
class NoAnswerStats:
    """How the retriever treats questions that have no answer."""

    count: int
    correctly_empty: int  # returned nothing: the right answer
    returned_something: int  # returned documents for a question with no answer


@dataclass(frozen=True, slots=True)
class GroupMetrics:
    """Metrics over one group of questions (all, one form, one hard class)."""

    count: int  # questions in the group that were answered
    errors: int  # questions in the group whose retrieval failed
    #: Canonical metric name -> value, e.g. "top1_hit_rate", "top3_hit_rate",
    #: "hit_rate@5", "mrr@10", "recall@10", "ndcg@10".
    values: Mapping[str, float]
    #: Hit rates with intervals, keyed like ``values`` ("top1_hit_rate", "hit_rate@5").
    intervals: Mapping[str, RateEstimate] = field(default_factory=dict)
    no_answer: NoAnswerStats | None = None


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """Client wall time per answered question, in milliseconds."""

    count: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float


@dataclass(frozen=True, slots=True)
class RunParameters:
    ks: tuple[int, ...] = DEFAULT_KS
    overfetch: int = DEFAULT_OVERFETCH
    #: Results requested per question: max(ks) * overfetch.
    limit: int = DEFAULT_TOP_K * DEFAULT_OVERFETCH
    #: Separator actually used to map chunk ids to documents ("" = none).
    doc_id_separator: str = ""
    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float = DEFAULT_TIMEOUT_S
    protocol_version: str = SCORING_PROTOCOL_VERSION


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
    #: (``retrieval_eval.outcomes.CompactOutcomes``); any sequence of outcomes will do.
    questions: Sequence[QuestionOutcome]
    underfilled_count: int = 0
    labels: Mapping[str, str] = field(default_factory=dict)
    #: Assigned by the run store when saved.
    run_id: str | None = None
    #: Unloaded latency: questions re-asked one at a time after the run (``latency`` is
    #: measured under the run's concurrency, queueing included). None without a probe.
    latency_probe: LatencySummary | None = None

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


# --- the documented dict shape (see report/run/json_format.py) -----------------------------


def run_to_dict(run: RunResult, *, questions: bool = True) -> dict[str, Any]:
    """One run in the documented JSON shape, ``regression`` null (``questions=False``:
    ``questions`` left empty, for a writer that encodes them a batch at a time)."""
    d = run.retriever
    p = run.parameters
    return {
        "run_id": run.run_id,
        "set": run.set_name,
        "set_fingerprint": run.set_fingerprint,
        "retriever": {
            "identifier": d.identifier,
            "version": d.version,
            "target": run.retriever_target,
            "variant": d.variant_label(run.retriever_target),
            "provenance": {
                "corpus_revision": d.corpus_revision,
                "model_revision": d.model_revision,
                "chunking": d.chunking,
                "pipeline": d.pipeline,
                "chunk_separator": d.chunk_separator,
                "metadata": dict(d.metadata),
            },
        },
        "state": run.state.value,
        "complete": run.complete,
        "started_at": run.started_at.isoformat(),
        "finished_at": run.finished_at.isoformat(),
        "duration_s": max(0.0, (run.finished_at - run.started_at).total_seconds()),
        "labels": dict(run.labels),
        "parameters": {
            "ks": list(p.ks),
            "overfetch": p.overfetch,
            "limit": p.limit,
            "doc_id_separator": p.doc_id_separator,
            "concurrency": p.concurrency,
            "timeout_s": p.timeout_s,
            "protocol_version": p.protocol_version,
        },
        "metrics": group_to_dict(run.metrics),
        "errors": run.error_count,
        "not_asked": run.not_asked_count,
        "skipped_members": run.skipped_members,
        "underfilled": run.underfilled_count,
        "no_answer": _no_answer(run.metrics.no_answer),
        "by_form": {k: group_to_dict(g) for k, g in run.by_form.items()},
        "by_hard_class": {k: group_to_dict(g) for k, g in run.by_hard_class.items()},
        "latency_ms": _latency(run.latency, p.concurrency),
        "latency_probe_ms": _latency(run.latency_probe, 1),
        "questions": [question_to_dict(q) for q in run.questions] if questions else [],
        "regression": None,
    }


def group_to_dict(g: GroupMetrics) -> dict[str, Any]:
    out: dict[str, Any] = {"count": g.count, "errors": g.errors}
    out.update((name, g.values[name]) for name in sorted(g.values, key=metric_sort_key))
    out["intervals"] = {
        name: _estimate(g.intervals[name]) for name in sorted(g.intervals, key=metric_sort_key)
    }
    out["no_answer"] = _no_answer(g.no_answer)
    return out


def question_to_dict(q: QuestionOutcome) -> dict[str, Any]:
    return {
        "id": q.question_id,
        "text": q.question_text,
        "form": q.form.value,
        "hard_class": q.hard_class,
        "expected_document_ids": list(q.expected_document_ids),
        "top1_hit": q.top1_hit,
        "top3_hit": q.top3_hit,
        "hits": {str(k): hit for k, hit in sorted(q.hits.items())},
        "ranked_document_ids": list(q.ranked_document_ids),
        "raw_ids": list(q.raw_ids),
        "latency_ms": q.latency_ms,
        "error": None if q.error is None else {"kind": q.error.kind, "message": q.error.message},
        "underfilled": q.underfilled,
        "notes": list(q.notes),
    }


def _estimate(e: RateEstimate) -> dict[str, float | int]:
    return {"rate": e.rate, "low": e.low, "high": e.high, "successes": e.successes,
            "count": e.count}  # fmt: skip


def _no_answer(stats: NoAnswerStats | None) -> dict[str, int] | None:
    if stats is None:
        return None
    return {
        "count": stats.count,
        "correctly_empty": stats.correctly_empty,
        "returned_something": stats.returned_something,
    }


def _latency(lat: LatencySummary | None, concurrency: int) -> dict[str, float] | None:
    """A latency summary with the calls in flight it was measured under."""
    if lat is None:
        return None
    return {"count": lat.count, "p50": lat.p50_ms, "p95": lat.p95_ms, "p99": lat.p99_ms,
            "mean": lat.mean_ms, "max": lat.max_ms, "concurrency": concurrency}  # fmt: skip
