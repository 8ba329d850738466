"""The comparison view: many runs side by side, laid out from ``comparison.Comparison``.

Every figure (rates, intervals, deltas, bootstrap intervals, Holm-corrected McNemar
p-values, overlap) comes from the library's comparison; the view only arranges it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from retrieval_eval.comparison.results import (
    Comparison,
    GroupRow,
    QuestionRow,
    QuestionsShown,
    RunColumn,
    RunVersusReference,
)
from retrieval_eval.report.html.measures import ComparedMeasures, compared_measures
from retrieval_eval.report.html.page import page_context, render_page
from retrieval_eval.report.judged_view import JudgedTable, judged_table
from retrieval_eval.report.run.html_view import HEADLINE
from retrieval_eval.report.run_names import RunName, names_of


@dataclass(frozen=True, slots=True)
class ComparisonView:
    comparison: Comparison
    #: One entry per run after the reference, in run order (None for the reference).
    versus: tuple[RunVersusReference | None, ...]
    charts: tuple[tuple[str, str, dict[str, Any]], ...]  # (name, caption, spec)
    #: The per-question grid's rows (disagreements first), as ``shown`` asked.
    questions: tuple[QuestionRow, ...]
    shown: QuestionsShown
    #: How each run is called (letter or the user's name, and what differs), run order.
    names: tuple[RunName, ...] = ()
    #: Each run's Judged@k by group (``judged_compare.html.j2``); None unless a run's
    #: set records judgments.
    judged: JudgedTable | None = None
    #: The stored IR measures side by side; None when no run stored any.
    measures: ComparedMeasures | None = None


def comparison_view(
    comparison: Comparison, shown: QuestionsShown = QuestionsShown.ALL
) -> ComparisonView:
    by_id = {v.run_id: v for v in comparison.versus}
    versus = tuple(by_id.get(run.run_id) for run in comparison.runs)
    names = names_of(comparison.runs)
    charts = []
    for kind, axis in (("form", "form"), ("hard_class", "hard class")):
        rows = [g for g in comparison.groups if g.kind == kind]
        if not rows:
            continue
        for metric, label in HEADLINE:
            spec = grouped_chart(comparison.runs, rows, metric, label, axis, names)
            caption = f"{label} hit rate by {axis}, each run with its 95% interval"
            charts.append((f"{kind}-{metric}", caption, spec))
    if shown is QuestionsShown.NONE:
        questions: tuple[QuestionRow, ...] = ()
    elif shown is QuestionsShown.DISAGREE:
        questions = tuple(q for q in comparison.questions if q.disagree)
    else:
        questions = comparison.questions
    judged = judged_table([run.judged for run in comparison.runs])
    return ComparisonView(comparison, versus, tuple(charts), questions, shown, names, judged,
                          compared_measures(comparison))  # fmt: skip


def grouped_chart(
    runs: tuple[RunColumn, ...],
    rows: list[GroupRow],
    metric: str,
    label: str,
    axis: str,
    names: tuple[RunName, ...] = (),
) -> dict[str, Any]:
    """One dataset per run, named by its short name (its id when none is given)."""
    names = names or names_of(runs)
    series = []
    for i, run in enumerate(runs):
        points = [None if g.metrics[i] is None else g.metrics[i].intervals.get(metric)  # type: ignore[union-attr]
                  for g in rows]  # fmt: skip
        series.append(
            {
                "label": names[i].short,
                "run_id": run.run_id,
                "values": [None if p is None else p.rate for p in points],
                "low": [None if p is None else p.low for p in points],
                "high": [None if p is None else p.high for p in points],
                "counts": [None if p is None else [p.successes, p.count] for p in points],
            }
        )
    return {
        "kind": "grouped",
        "axis": axis,
        "metric": metric,
        "metric_label": f"{label} hit rate",
        "categories": [g.name for g in rows],
        "series": series,
    }


def render_comparison_html(
    comparison: Comparison,
    shown: QuestionsShown = QuestionsShown.ALL,
    *,
    assets_url: str | None = None,
) -> str:
    """Many runs side by side (``runs compare --format html``); ``shown`` picks the rows
    of the per-question grid."""
    view = comparison_view(comparison, shown)
    return render_page("comparison.html.j2", assets_url=assets_url, view=view, **page_context())
