"""Regression verdicts: is the current run worse than its baseline, and is it noise?"""

from __future__ import annotations

from retrieval_eval.regression.fingerprint import (
    BenchmarkDifference,
    benchmark_differences,
    benchmark_fingerprint,
    benchmark_parts,
    variant_fingerprint,
    variant_parts,
)
from retrieval_eval.regression.verdict import compare, incomplete_verdict, judge
from retrieval_eval.regression.verdict_records import (
    ErrorBudget,
    Flip,
    FlipDirection,
    MetricDelta,
    PairedTest,
    RunReport,
    Thresholds,
    Verdict,
    VerdictKind,
)
from retrieval_eval.stats.mcnemar import mcnemar_exact

__all__ = [
    "BenchmarkDifference",
    "ErrorBudget",
    "Flip",
    "FlipDirection",
    "MetricDelta",
    "PairedTest",
    "RunReport",
    "Thresholds",
    "Verdict",
    "VerdictKind",
    "benchmark_differences",
    "benchmark_fingerprint",
    "benchmark_parts",
    "compare",
    "incomplete_verdict",
    "judge",
    "mcnemar_exact",
    "variant_fingerprint",
    "variant_parts",
]
