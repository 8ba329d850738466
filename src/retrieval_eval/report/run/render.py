"""One entry for every format: ``render(report, format)``, for the CLI and for scripts."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from retrieval_eval.errors import InputError
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.record import Recorded
from retrieval_eval.regression.verdict_records import RunReport

if TYPE_CHECKING:  # the label reader loads only when a breakdown is asked for
    from retrieval_eval.report.label_source import BySource

#: Width of reports written to files (and of text off a terminal).
FILE_WIDTH = 120


class ReportFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    JUNIT = "junit"
    MARKDOWN = "markdown"
    #: One self-contained page (Chart.js inlined); see ``retrieval_eval.report.run.html_view``.
    HTML = "html"
    #: GitHub Actions workflow commands: annotations on the job and the pull request.
    GITHUB = "github"


def render(
    report: Recorded | RunReport | RunResult | Sequence[RunReport | RunResult],
    fmt: ReportFormat | str = ReportFormat.TEXT,
    *,
    color: bool = False,
    width: int = FILE_WIDTH,
    warnings: Sequence[str] = (),
    by_source: Sequence[BySource | None] = (),
) -> str:
    """The report as text in ``fmt``: what ``judge_and_save`` returned (its warnings
    included), one run or several, judged (``RunReport``) or not (a ``RunResult`` is
    reported without a verdict, as "not checked"). ANSI colour only with ``color``.
    ``by_source``: each run's figures by label source (``report.label_source``), in run
    order, shown by the text and JSON formats."""
    if isinstance(report, Recorded):
        reports: Sequence[RunReport] = report.reports
        warnings = (*report.warnings, *warnings)
    elif isinstance(report, RunReport | RunResult):
        reports = (_as_report(report),)
    else:
        reports = [_as_report(r) for r in report]
    kind = ReportFormat(fmt)
    if kind is ReportFormat.JSON:
        # each format's module (Jinja2 for HTML) loads with its format
        from retrieval_eval.report.run.json_format import render_json

        return render_json(reports, warnings, by_source)
    if kind is ReportFormat.JUNIT:
        from retrieval_eval.report.run.junit import render_junit

        return render_junit(reports)
    if kind is ReportFormat.MARKDOWN:
        from retrieval_eval.report.run.markdown import render_markdown

        return render_markdown(reports, warnings)
    if kind is ReportFormat.GITHUB:
        from retrieval_eval.report.run.github import render_github

        return render_github(reports, warnings)
    if kind is ReportFormat.HTML:
        from retrieval_eval.report.run.html_view import render_html

        return render_html(reports, warnings)
    from retrieval_eval.report.run.text import render_text

    return render_text(reports, color=color, width=width, warnings=warnings, by_source=by_source)


def _as_report(item: object) -> RunReport:
    if isinstance(item, RunReport):
        return item
    if isinstance(item, RunResult):
        return RunReport(item)
    raise InputError(
        f"render() takes runs (RunResult), judged runs (RunReport) or what judge_and_save "
        f"returned, not {type(item).__name__}; judge a run with judge(run, baseline) first "
        "if you want a verdict in the report"
    )
