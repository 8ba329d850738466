"""Many runs side by side, a set × retriever's history, and rank overlap between runs."""

from __future__ import annotations

from retrieval_eval.comparison.compare import compare_runs, run_column
from retrieval_eval.comparison.history import build_history
from retrieval_eval.comparison.overlap import DEFAULT_RBO_P, jaccard, rbo
from retrieval_eval.comparison.results import (
    Cell,
    Comparison,
    ComparisonSettings,
    FlakyQuestion,
    GroupRow,
    History,
    HistoryEntry,
    IncomparableRun,
    Interval,
    OverlapSummary,
    QuestionOverlap,
    QuestionRow,
    QuestionsShown,
    RunColumn,
    RunDelta,
    RunVersusReference,
    SignificanceTest,
)
from retrieval_eval.stats.many_runs import holm, paired_bootstrap

__all__ = [
    "DEFAULT_RBO_P",
    "Cell",
    "Comparison",
    "ComparisonSettings",
    "FlakyQuestion",
    "GroupRow",
    "History",
    "HistoryEntry",
    "IncomparableRun",
    "Interval",
    "OverlapSummary",
    "QuestionOverlap",
    "QuestionRow",
    "QuestionsShown",
    "RunColumn",
    "RunDelta",
    "RunVersusReference",
    "SignificanceTest",
    "build_history",
    "compare_runs",
    "holm",
    "jaccard",
    "paired_bootstrap",
    "rbo",
    "run_column",
]
