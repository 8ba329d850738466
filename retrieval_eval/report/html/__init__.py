"""HTML views (run, comparison, history): a self-contained file, or pages of ``reval ui``.

Both forms render the same Jinja2 templates; charts are drawn by Chart.js, whose
minified build is vendored from its npm package (``assets/VENDORED.json`` records the
version and checksum; ``tools/vendor_chartjs.py`` refreshes it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from retrieval_eval import __version__
from retrieval_eval.report.html.page import render_page
from retrieval_eval.report.html.run_view import RunView, run_view
from retrieval_eval.report.model import RunReport

__all__ = ["RunView", "render_html", "render_page", "run_view"]


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
        version=__version__,
        generated=f"{datetime.now(UTC):%Y-%m-%d %H:%M UTC}",
    )
