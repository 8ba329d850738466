"""Views of the run history: the ``runs list`` table and the ``runs compare`` report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retrieval_eval.records import RunResult
from retrieval_eval.regression.types import Verdict
from retrieval_eval.report.json_report import SCHEMA_VERSION, group_to_dict, verdict_to_dict
from retrieval_eval.report.model import retriever_label, run_title
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.terminal_regression import render_verdict
from retrieval_eval.report.text_style import Style, string_console

if TYPE_CHECKING:  # the store package imports SQLAlchemy; reports only read summaries
    from retrieval_eval.store.types import RunSummary


def summaries_json(summaries: Sequence[RunSummary]) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "runs": [
            {
                "run_id": s.run_id,
                "set": s.set_name,
                "set_fingerprint": s.set_fingerprint,
                "retriever": {
                    "identifier": s.retriever_identifier,
                    "version": s.retriever_version,
                    "target": s.retriever_target,
                },
                "state": s.state.value,
                "started_at": s.started_at.isoformat(),
                "finished_at": s.finished_at.isoformat(),
                "questions": s.question_count,
                "errors": s.error_count,
                "top1_hit_rate": s.top1_hit_rate,
                "top3_hit_rate": s.top3_hit_rate,
                "pinned": s.pinned,
                "labels": dict(s.labels),
            }
            for s in summaries
        ],
    }


def summaries_table(summaries: Sequence[RunSummary], *, width: int = 120) -> str:
    console, buffer = string_console(width, color=False)
    table = Style(False).table(title=None)
    for column in (
        "run",
        "started (UTC)",
        "set",
        "retriever",
        "state",
        "questions",
        "top-1",
        "top-3",
        "labels",
    ):
        justify = "right" if column in ("questions", "top-1", "top-3") else "left"
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for s in summaries:
        errors = f" ({s.error_count} err)" if s.error_count else ""
        table.add_row(
            escape(s.run_id) + (" *" if s.pinned else ""),
            f"{s.started_at:%Y-%m-%d %H:%M:%S}",
            escape(s.set_name),
            escape(f"{s.retriever_identifier} {s.retriever_version}".strip()),
            s.state.value,
            f"{s.question_count}{errors}",
            _rate(s.top1_hit_rate),
            _rate(s.top3_hit_rate),
            escape(", ".join(f"{k}={v}" for k, v in sorted(s.labels.items()))),
        )
    console.print(table)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def comparison_json(a: RunResult, b: RunResult, verdict: Verdict) -> dict[str, Any]:
    def side(run: RunResult) -> dict[str, Any]:
        return {
            "run_id": run.run_id,
            "set": run.set_name,
            "set_fingerprint": run.set_fingerprint,
            "retriever": {
                "identifier": run.retriever.identifier,
                "version": run.retriever.version,
                "target": run.retriever_target,
            },
            "state": run.state.value,
            "metrics": group_to_dict(run.metrics),
        }

    return {
        "schema_version": SCHEMA_VERSION,
        "a": side(a),
        "b": side(b),
        "comparison": verdict_to_dict(verdict),
    }


def comparison_text(
    a: RunResult, b: RunResult, verdict: Verdict, *, color: bool = False, width: int = 120
) -> str:
    console, buffer = string_console(width, color)
    style = Style(color)
    console.print(
        style.heading("compare") + f" B {escape(b.run_id or '?')} against "
        f"A {escape(a.run_id or '?')}"
    )
    for tag, run in (("A", a), ("B", b)):
        m = run.metrics.values
        console.print(
            f"  {tag}: {escape(run_title(run))} · {run.state.value} · "
            f"top-1 {_rate(m.get('top1_hit_rate'))} · top-3 {_rate(m.get('top3_hit_rate'))} "
            f"· {len(run.questions)} questions"
        )
    if a.retriever.identifier != b.retriever.identifier:
        console.print(
            f"  retrievers differ: {escape(retriever_label(a))} vs {escape(retriever_label(b))}"
        )
    console.print()
    render_verdict(console, verdict, style, title="comparison")
    text = buffer.getvalue()
    return text if color else "".join(line.rstrip() + "\n" for line in text.splitlines())


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
