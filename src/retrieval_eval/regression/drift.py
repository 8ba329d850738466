"""Slow drift: a chain of accepted runs must not walk a rate down unnoticed.

Each run is judged against the newest accepted run of its lineage, so five accepted drops
of 0.09 each pass one by one. Drift measures the drop since the lineage's *drift
reference*: the accepted run with the best top-1 rate since a person last accepted one
(``reval runs accept``, which resets it on purpose), or the pinned run when one is pinned
(then the baseline already is the reference). Its deltas are reported in group
``drift``; a drop larger than the threshold is a warning, or a regression when
``--max-drift`` is given and the drop exceeds it. Runs scored against another benchmark
are never compared.
"""

from __future__ import annotations

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.drop import drop_exceeds
from retrieval_eval.regression.fingerprint import benchmark_differences
from retrieval_eval.regression.verdict_records import MetricDelta, Thresholds

DRIFT_GROUP = "drift"
_NAMES = {TOP1_HIT_RATE: "top-1", TOP3_HIT_RATE: "top-3"}


def drift_deltas(
    current: RunResult,
    baseline: RunResult,
    reference: RunResult | None,
    thresholds: Thresholds,
) -> tuple[list[MetricDelta], list[str]]:
    """(deltas in group ``drift``, warnings); nothing when the reference is the baseline
    or was scored against another benchmark."""
    if reference is None or reference.run_id == baseline.run_id:
        return [], []
    if benchmark_differences(current, reference):
        return [], []
    deltas, warnings = [], []
    for metric, name in _NAMES.items():
        if metric not in current.metrics.values or metric not in reference.metrics.values:
            continue
        limit = thresholds.max_drift
        shown = thresholds.max_top1_drop if metric == TOP1_HIT_RATE else thresholds.max_top3_drop
        delta = MetricDelta(
            group=DRIFT_GROUP,
            metric=metric,
            baseline=reference.metrics.values[metric],
            current=current.metrics.values[metric],
            threshold=limit,
            regressed=limit is not None
            and drop_exceeds(metric, current.metrics, reference.metrics, limit),
            baseline_count=reference.metrics.count,
            current_count=current.metrics.count,
        )
        deltas.append(delta)
        bar = limit if limit is not None else shown
        if not delta.regressed and drop_exceeds(metric, current.metrics, reference.metrics, bar):
            warnings.append(
                f"slow drift: {name} fell {-delta.delta:.3f} since run {reference.run_id} "
                f"({delta.baseline:.3f} -> {delta.current:.3f}), the best accepted run of "
                "this lineage, more than "
                + (f"--max-drift {limit:g}" if limit is not None else f"the allowed {shown:g}")
                + " over a chain of accepted runs"
                + ("" if limit is not None else "; --max-drift D fails the gate on it")
            )
    return deltas, warnings
