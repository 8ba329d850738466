"""What every report renders: a run, its verdict, and helpers shared by the formats."""

from __future__ import annotations

from collections.abc import Mapping

from retrieval_eval.metric_keys import metric_sort_key
from retrieval_eval.records.metrics import GroupMetrics, LatencySummary
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict_records import FlipDirection, RunReport


def ordered_metrics(values: Mapping[str, float]) -> list[str]:
    return sorted(values, key=metric_sort_key)


def rate_names(metrics: GroupMetrics) -> list[str]:
    """The hit-rate metrics that carry intervals, in display order."""
    return sorted(metrics.intervals, key=metric_sort_key)


def run_title(run: RunResult) -> str:
    """``set × retriever`` as people say it, used as a heading and a JUnit suite name."""
    return f"{run.set_name} × {retriever_label(run)}"


def retriever_label(run: RunResult) -> str:
    version = f" {run.retriever.version}" if run.retriever.version else ""
    return f"{run.retriever.identifier}{version}"


#: Shown in place of the text of a question of a run stored before texts were kept.
TEXT_NOT_STORED = "(text not stored: run saved before reval kept question texts)"


def question_text(text: str | None) -> str:
    """A question's text for people, or why there is none."""
    return TEXT_NOT_STORED if text is None else text


def hit_mark(hit: bool | None) -> str:
    return "-" if hit is None else ("hit" if hit else "miss")


def question_flips(report: RunReport) -> dict[str, list[str]]:
    """question id -> descriptions of its hit->miss flips (e.g. ``["top-1"]``)."""
    flips: dict[str, list[str]] = {}
    if report.verdict is None:
        return flips
    for flip in report.verdict.flips:
        if flip.direction == FlipDirection.HIT_TO_MISS:
            flips.setdefault(flip.question_id, []).append(f"top-{flip.k}")
    return flips


def duration_s(run: RunResult) -> float:
    return max(0.0, (run.finished_at - run.started_at).total_seconds())


def latency_lines(run: RunResult) -> list[tuple[str, LatencySummary]]:
    """The run's latency figures, each with the load it was measured under: the run's
    own at its concurrency (queueing included), then the unloaded probe's, if any."""
    lines = []
    if run.latency is not None and run.latency.count:
        lines.append((f"at {run.parameters.concurrency} in flight", run.latency))
    probe = run.latency_probe
    if probe is not None and probe.count:
        lines.append((f"unloaded ({probe.count} re-asked one at a time)", probe))
    return lines
