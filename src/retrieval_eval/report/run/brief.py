"""The few lines a terminal gets when the report went to a file (``eval --output``): per
run its verdict and headline rates, then where the report is. The file holds the rest."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.run import RunState
from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.model import retriever_label
from retrieval_eval.report.plural import plural
from retrieval_eval.report.safe_text import short, visible

#: The verdict of a run judged against nothing (``--no-save`` without a baseline, or a
#: run reported from a script).
NOT_CHECKED = "not checked"


def render_brief(reports: Sequence[RunReport], output: Path, fmt: str) -> str:
    lines = [_line(r) for r in reports]
    lines.append(f"wrote the {fmt} report to {visible(str(output))}")
    return "".join(line + "\n" for line in lines)


def _line(report: RunReport) -> str:
    run = report.run
    verdict = NOT_CHECKED if report.verdict is None else report.verdict.kind.value.upper()
    against = ""
    if report.verdict is not None and report.verdict.baseline_run_id:
        against = f" vs {short(report.verdict.baseline_run_id)}"
    rates = " · ".join(
        f"{name} {e.rate:.3f} ({e.successes}/{e.count})"
        for name, key in (("top-1", TOP1_HIT_RATE), ("top-3", TOP3_HIT_RATE))
        if (e := run.metrics.intervals.get(key)) is not None
    )
    errors = f" · {plural(run.error_count, 'error')}" if run.error_count else ""
    said = run.state is RunState.COMPLETE or run.state.value == verdict.lower()
    state = "" if said else f" · {run.state.value}"
    run_id = f" · run {short(run.run_id)}" if run.run_id else ""
    title = f"{visible(run.set_name)} × {visible(retriever_label(run))}"
    return f"{title}: {verdict}{against} · {rates}{errors}{state}{run_id}"
