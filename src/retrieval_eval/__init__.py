"""reval: measure retrieval quality against golden question sets.

The public API is importable from here and typed for the user's type checker; its
modules are imported on first use, so that ``import retrieval_eval`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retrieval_eval.lazy_names import lazy_getattr
from retrieval_eval.version import __version__

if TYPE_CHECKING:
    from retrieval_eval.evaluation.coordinator import (
        EvalOptions,
        EvaluationInterrupted,
        aevaluate,
        evaluate,
    )
    from retrieval_eval.metric_keys import MetricFamily, metric_key, parse_metric_key
    from retrieval_eval.questions.loading import load_question_set, load_question_sets
    from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
    from retrieval_eval.records.outcome import Form, QuestionOutcome
    from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState
    from retrieval_eval.regression.record import Recorded, judge_and_save
    from retrieval_eval.regression.verdict_records import (
        ErrorBudget,
        RunReport,
        Thresholds,
        Verdict,
    )
    from retrieval_eval.report.run.render import ReportFormat, render
    from retrieval_eval.retrievers.embedding import (
        Embedder,
        EmbedderIdentity,
        EmbeddingError,
        load_embedder,
    )
    from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem, Retriever
    from retrieval_eval.retrievers.server.sdk import ServerTls, serve

_LAZY = {
    "Recorded": "retrieval_eval.regression.record",
    "judge_and_save": "retrieval_eval.regression.record",
    "ErrorBudget": "retrieval_eval.regression.verdict_records",
    "RunReport": "retrieval_eval.regression.verdict_records",
    "Thresholds": "retrieval_eval.regression.verdict_records",
    "Verdict": "retrieval_eval.regression.verdict_records",
    "ReportFormat": "retrieval_eval.report.run.render",
    "render": "retrieval_eval.report.run.render",
    "EvalOptions": "retrieval_eval.evaluation.coordinator",
    "EvaluationInterrupted": "retrieval_eval.evaluation.coordinator",
    "aevaluate": "retrieval_eval.evaluation.coordinator",
    "evaluate": "retrieval_eval.evaluation.coordinator",
    "QuestionOutcome": "retrieval_eval.records",
    "MetricFamily": "retrieval_eval.metric_keys",
    "metric_key": "retrieval_eval.metric_keys",
    "parse_metric_key": "retrieval_eval.metric_keys",
    "RunResult": "retrieval_eval.records",
    "RunState": "retrieval_eval.records",
    "load_question_set": "retrieval_eval.questions.loading",
    "load_question_sets": "retrieval_eval.questions.loading",
    "Form": "retrieval_eval.records",
    "GoldenQuestion": "retrieval_eval.questions.model",
    "GoldenQuestionSet": "retrieval_eval.questions.model",
    "Embedder": "retrieval_eval.retrievers.embedding",
    "EmbedderIdentity": "retrieval_eval.retrievers.embedding",
    "EmbeddingError": "retrieval_eval.retrievers.embedding",
    "load_embedder": "retrieval_eval.retrievers.embedding",
    "ServerTls": "retrieval_eval.retrievers.server.sdk",
    "serve": "retrieval_eval.retrievers.server.sdk",
    "Retriever": "retrieval_eval.retrievers.protocol",
    "RetrievedItem": "retrieval_eval.retrievers.protocol",
    "Ranking": "retrieval_eval.retrievers.protocol",
    "RetrieverDescription": "retrieval_eval.records",
}

__all__ = [
    "Embedder",
    "EmbedderIdentity",
    "EmbeddingError",
    "ErrorBudget",
    "EvalOptions",
    "EvaluationInterrupted",
    "Form",
    "GoldenQuestion",
    "GoldenQuestionSet",
    "MetricFamily",
    "QuestionOutcome",
    "Ranking",
    "Recorded",
    "ReportFormat",
    "RetrievedItem",
    "Retriever",
    "RetrieverDescription",
    "RunReport",
    "RunResult",
    "RunState",
    "ServerTls",
    "Thresholds",
    "Verdict",
    "__version__",
    "aevaluate",
    "evaluate",
    "judge_and_save",
    "load_embedder",
    "load_question_set",
    "load_question_sets",
    "metric_key",
    "parse_metric_key",
    "render",
    "serve",
]


__getattr__ = lazy_getattr(globals(), _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
