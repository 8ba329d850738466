"""HTML views (run, comparison, history): a self-contained file, or pages of ``reval ui``.

Both forms render the same Jinja2 templates; charts are drawn by Chart.js, whose
minified build is vendored from its npm package (``assets/VENDORED.json`` records the
version and checksum; ``tools/vendor_chartjs.py`` refreshes it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from retrieval_eval import __version__
from retrieval_eval.comparison.types import Comparison, History, QuestionsShown
from retrieval_eval.report.html.comparison_view import ComparisonView, comparison_view
from retrieval_eval.report.html.history_view import HistoryView, history_view
from retrieval_eval.report.html.page import render_page
from retrieval_eval.report.html.run_view import RunView, run_view
from retrieval_eval.report.model import RunReport

__all__ = [
    "ComparisonView",
    "HistoryView",
    "RunView",
    "comparison_view",
    "history_view",
    "page_context",
    "render_comparison_html",
    "render_history_html",
    "render_html",
    "render_page",
    "run_view",
]


def page_context() -> dict[str, Any]:
    """What every page's footer says: the version and when it was made."""
    return {"version": __version__, "generated": f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC}"}


def render_html(
    reports: Sequence[RunReport],
    warnings: Sequence[str] = (),
    *,
    assets_url: str | None = None,
) -> str:
    """The run report (``--format html``): one section per run, one file."""
    return render_page(
        "report.html.j2",
        assets_url=assets_url,
        views=[run_view(r, i) for i, r in enumerate(reports)],
        warnings=list(warnings),
        **page_context(),
    )


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


def render_history_html(history: History, *, assets_url: str | None = None) -> str:
    """One set × retriever over time (``runs history --format html``)."""
    view = history_view(history)
    return render_page("history.html.j2", assets_url=assets_url, view=view, **page_context())
