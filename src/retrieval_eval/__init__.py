"""reval: measure retrieval quality against golden question sets.

The public API (docs/reference/api.md) is importable from here and typed for the user's
type checker. ``PUBLIC`` says where each name lives: a name's module is imported when the
name is first asked for, so that ``import retrieval_eval`` (and ``reval --help``) loads
no store, gRPC or report code. Type checkers read the names from the ``TYPE_CHECKING``
imports and ``__all__``; ``tests/test_public_names.py`` holds the three equal.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

#: The modules of the public names, and the names each defines.
PUBLIC = {
    "retrieval_eval.evaluation.coordinator": (
        "EvalOptions", "EvaluationInterrupted", "aevaluate", "evaluate",
    ),
    "retrieval_eval.metric_keys": ("MetricFamily", "metric_key", "parse_metric_key"),
    "retrieval_eval.questions.loading": ("load_question_set", "load_question_sets"),
    "retrieval_eval.questions.model": ("GoldenQuestion", "GoldenQuestionSet"),
    "retrieval_eval.records.outcome": ("Form", "QuestionOutcome"),
    "retrieval_eval.records.run": ("RetrieverDescription", "RunResult", "RunState"),
    "retrieval_eval.regression.record": ("Recorded", "judge_and_save"),
    "retrieval_eval.regression.verdict_records": (
        "ErrorBudget", "RunReport", "Thresholds", "Verdict",
    ),
    "retrieval_eval.report.run.render": ("ReportFormat", "render"),
    "retrieval_eval.retrievers.embedding": (
        "Embedder", "EmbedderIdentity", "EmbeddingError", "load_embedder",
    ),
    "retrieval_eval.retrievers.protocol": ("Ranking", "RetrievedItem", "Retriever"),
    "retrieval_eval.retrievers.server.sdk": ("ServerTls", "serve"),
}  # fmt: skip
_MODULE_OF = {name: module for module, names in PUBLIC.items() for name in names}

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


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # a plain attribute from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
