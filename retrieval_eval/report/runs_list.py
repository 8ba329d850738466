"""Views of the run history: the ``runs list`` table and the ``runs compare`` report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run.json_format import SCHEMA_VERSION
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.text_style import Style, string_console

if TYPE_CHECKING:  # the store package imports SQLAlchemy; reports only read summaries
    from retrieval_eval.store.summaries import RunSummary


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
                TOP1_HIT_RATE: s.top1_hit_rate,
                TOP3_HIT_RATE: s.top3_hit_rate,
                "pinned": s.pinned,
                "labels": dict(s.labels),
                "variant": s.variant,
                "verdict": s.verdict_kind or None,
                "baseline_run_id": s.baseline_run_id,
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
        "variant",
        "state",
        "verdict",
        "questions",
        "top-1",
        "top-3",
        "labels",
    ):
        justify = "right" if column in ("questions", "top-1", "top-3") else "left"
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for s in summaries:
        errors = f" ({plural(s.error_count, 'error')})" if s.error_count else ""
        table.add_row(
            escape(s.run_id) + (" *" if s.pinned else ""),
            f"{s.started_at:%Y-%m-%d %H:%M:%S}",
            escape(s.set_name),
            escape(s.variant or f"{s.retriever_identifier} {s.retriever_version}".strip()),
            s.state.value,
            s.verdict_kind or "-",
            f"{s.question_count}{errors}",
            _rate(s.top1_hit_rate),
            _rate(s.top3_hit_rate),
            escape(", ".join(f"{k}={v}" for k, v in sorted(s.labels.items()))),
        )
    console.print(table)
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
