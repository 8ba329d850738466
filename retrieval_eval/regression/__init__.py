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
from retrieval_eval.regression.judge import compare, judge
from retrieval_eval.regression.stats import mcnemar_exact
from retrieval_eval.regression.types import (
    Flip,
    FlipDirection,
    MetricDelta,
    PairedTest,
    Thresholds,
    Verdict,
    VerdictKind,
)

__all__ = [
    "BenchmarkDifference",
    "Flip",
    "FlipDirection",
    "MetricDelta",
    "PairedTest",
    "Thresholds",
    "Verdict",
    "VerdictKind",
    "benchmark_differences",
    "benchmark_fingerprint",
    "benchmark_parts",
    "compare",
    "judge",
    "mcnemar_exact",
    "variant_fingerprint",
    "variant_parts",
]
