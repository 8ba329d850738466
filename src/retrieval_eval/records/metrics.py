"""The figures over a group of questions: rates with their intervals, how questions with no
answer were treated, and the latency summary."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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
class MeasureMean:
    """One IR measure's mean over a run (``retrieval_eval.scoring.measures``) and its
    denominator: the questions it is over, and the answered ones it left out."""

    value: float | None
    count: int
    left_out: int


@dataclass(frozen=True, slots=True)
class GroupMetrics:
    """Metrics over one group of questions (all, one form, one hard class)."""

    count: int  # questions in the group that were answered
    errors: int  # questions in the group whose retrieval failed
    #: Canonical metric name -> value, e.g. "top1_hit_rate", "top3_hit_rate",
    #: "hit_rate@5", "mrr@10", "recall@10", "binary_ndcg@10".
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
