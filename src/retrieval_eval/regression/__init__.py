"""Regression verdicts: is the current run worse than its baseline, and is it noise?

The names below load on first use (PEP 562): importing one module of the package, e.g.
``verdict_records`` for the thresholds' defaults of a ``--help`` screen or a listing,
does not load the judge, its statistics and every record it uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retrieval_eval.lazy_names import lazy_getattr

if TYPE_CHECKING:
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

_WHERE = {
    **dict.fromkeys(
        ("BenchmarkDifference", "benchmark_differences", "benchmark_fingerprint",
         "benchmark_parts", "variant_fingerprint", "variant_parts"),
        "retrieval_eval.regression.fingerprint",
    ),
    **dict.fromkeys(
        ("compare", "incomplete_verdict", "judge"), "retrieval_eval.regression.verdict"
    ),
    **dict.fromkeys(
        ("ErrorBudget", "Flip", "FlipDirection", "MetricDelta", "PairedTest", "RunReport",
         "Thresholds", "Verdict", "VerdictKind"),
        "retrieval_eval.regression.verdict_records",
    ),
    "mcnemar_exact": "retrieval_eval.stats.mcnemar",
}  # fmt: skip

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


__getattr__ = lazy_getattr(globals(), _WHERE)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
