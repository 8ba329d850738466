"""The values that flow through the pipeline: question forms, retriever identities,
per-question outcomes, rates, group metrics, run parameters, whole runs and the defaults.

The bottom layer beside ``errors``: it imports only the modules below it (metric keys,
lazy names), so every layer above (questions, retrievers, scoring, evaluation, store,
regression, report, cli) can share these records without importing one another. Produced
by scoring and the coordinator, consumed by the store, regression and reports.

Every name is importable from here; each module holds one job:

    parameters   a run's parameters and their defaults, the scoring protocol's version
    failures     why a question has no ranking (never a miss)
    outcome      one question's outcome, its form and hard class
    metrics      rates with intervals, group metrics, latency summaries
    run          what was measured, how far a run got, the run itself
    json_shape   the run as the JSON report holds it (``RunResult.to_dict``); imported on
                 first use, so that evaluating without a JSON report does not load it
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retrieval_eval.lazy_names import lazy_getattr
from retrieval_eval.records.failures import SKIPPED_MEMBER_NOTE, FailureKind, RetrievalFailure
from retrieval_eval.records.metrics import (
    GroupMetrics,
    LatencySummary,
    MeasureMean,
    NoAnswerStats,
    RateEstimate,
)
from retrieval_eval.records.outcome import UNCLASSIFIED, Form, QuestionOutcome
from retrieval_eval.records.parameters import (
    DEFAULT_CONCURRENCY,
    DEFAULT_KS,
    DEFAULT_OVERFETCH,
    DEFAULT_TIMEOUT_S,
    DEFAULT_TOP_K,
    SCORING_PROTOCOL_VERSION,
    RunParameters,
)
from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState

if TYPE_CHECKING:
    from retrieval_eval.records.json_shape import group_to_dict, question_to_dict, run_to_dict

_LAZY = dict.fromkeys(
    ("group_to_dict", "question_to_dict", "run_to_dict"), "retrieval_eval.records.json_shape"
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_KS",
    "DEFAULT_OVERFETCH",
    "DEFAULT_TIMEOUT_S",
    "DEFAULT_TOP_K",
    "SCORING_PROTOCOL_VERSION",
    "SKIPPED_MEMBER_NOTE",
    "UNCLASSIFIED",
    "FailureKind",
    "Form",
    "GroupMetrics",
    "LatencySummary",
    "MeasureMean",
    "NoAnswerStats",
    "QuestionOutcome",
    "RateEstimate",
    "RetrievalFailure",
    "RetrieverDescription",
    "RunParameters",
    "RunResult",
    "RunState",
    "group_to_dict",
    "question_to_dict",
    "run_to_dict",
]

__getattr__ = lazy_getattr(globals(), _LAZY)
