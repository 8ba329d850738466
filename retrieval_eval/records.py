"""The values that flow through the pipeline: question forms, retriever identities,
per-question outcomes, rates, group metrics, run parameters, whole runs and the defaults.

The bottom layer beside ``errors``: it imports nothing else from the package, so every
layer above (questions, retrievers, scoring, evaluation, store, regression, report, cli)
can share these records without importing one another.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

#: Bumped whenever the scoring protocol changes in a way that moves numbers;
#: part of the benchmark fingerprint, so runs across a change are not compared.
SCORING_PROTOCOL_VERSION = "1"
DEFAULT_TOP_K = 3
DEFAULT_OVERFETCH = 4
DEFAULT_KS = (1, 3)
DEFAULT_TIMEOUT_S = 10.0


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


class RunState(StrEnum):
    COMPLETE = "complete"  # every question answered
    INCOMPLETE = "incomplete"  # some retrievals failed; rates are over answered questions
    INTERRUPTED = "interrupted"  # stopped by the user; what was measured is kept


@dataclass(frozen=True, slots=True)
class RetrievalFailure:
    """Why a question has no ranking. Never a miss."""

    kind: str  # timeout | unavailable | rejected | unauthenticated | internal | cancelled
    message: str


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
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
    concurrency: int = 8
    timeout_s: float = DEFAULT_TIMEOUT_S
    protocol_version: str = SCORING_PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class RunResult:
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
    questions: tuple[QuestionOutcome, ...]
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
        return sum(1 for q in self.questions if q.error is not None)
