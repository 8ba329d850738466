"""The history view: one set × retriever over time, laid out from ``comparison.History``.

Oldest run on the left. Each point is a run's rate with its 95% interval as a band; the
point's shape says the verdict the run was given when it was saved, and the pinned
baseline is drawn larger. Variants (another version, model or chunking of the same
retriever) get letters, explained under the chart by what differs between them; the trend
line and the band are broken where the variant changes, so neither joins two runs of
different variants.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from retrieval_eval.comparison.results import History, HistoryEntry
from retrieval_eval.metric_keys import TOP1_HIT_RATE
from retrieval_eval.report.html.measures import HistoryMeasures, history_measures
from retrieval_eval.report.html.page import page_context, render_page
from retrieval_eval.report.run.html_view import HEADLINE
from retrieval_eval.report.run_names import PART_SEPARATOR, differing_parts

#: Chart.js point styles per stored verdict kind ("" = saved without a check).
POINT_STYLES = {
    "pass": "circle",
    "regression": "crossRot",
    "no-baseline": "triangle",
    "incomparable": "rectRot",
    "incomplete": "rect",
    "": "line",
}
PINNED_SIZE, POINT_SIZE = 9, 5


@dataclass(frozen=True, slots=True)
class HistoryView:
    history: History
    #: Variant label -> letter, in order of first appearance (oldest first).
    variants: dict[str, str]
    letters: tuple[str, ...]  # per entry, newest first like ``history.entries``
    chart: dict[str, Any]
    #: Per entry (newest first): its variant differs from the run before it.
    changed: tuple[bool, ...] = ()
    #: Variant label -> the parts of it no other variant shown shares, for the legend.
    differs: dict[str, str] = field(default_factory=dict)
    #: The flaky and never-hit questions were computed (every shown run's outcomes read);
    #: ``reval ui`` reads them only when asked, the figures come from the stored runs.
    questions: bool = True
    #: The ``?limit=`` the page was asked with, kept by its links.
    limit: int | None = None
    #: Each shown run's stored IR measures; None when no shown run stored any.
    measures: HistoryMeasures | None = None


def history_view(
    history: History, *, questions: bool = True, limit: int | None = None
) -> HistoryView:
    oldest_first = list(reversed(history.entries))
    variants: dict[str, str] = {}
    for entry in oldest_first:
        variants.setdefault(entry.variant, _letter(len(variants)))
    letters = tuple(variants[e.variant] for e in history.entries)
    older = [*history.entries[1:], None]
    changed = tuple(o is not None and o.variant_key != e.variant_key
                    for e, o in zip(history.entries, older, strict=True))  # fmt: skip
    labels = list(variants)
    parts = differing_parts(labels) if len(labels) > 1 else [() for _ in labels]
    differs = {label: PART_SEPARATOR.join(p) for label, p in zip(labels, parts, strict=True)}
    chart = _chart(oldest_first, variants)
    return HistoryView(history, variants, letters, chart, changed, differs, questions, limit,
                       history_measures(history))  # fmt: skip


def verdict_kind(entry: HistoryEntry) -> str:
    return "" if entry.verdict is None else entry.verdict.kind.value


def _chart(entries: list[HistoryEntry], variants: dict[str, str]) -> dict[str, Any]:
    series = []
    for metric, label in HEADLINE:
        points = [e.top1 if metric == TOP1_HIT_RATE else e.top3 for e in entries]
        series.append(
            {
                "label": label,
                "values": [None if p is None else p.rate for p in points],
                "low": [None if p is None else p.low for p in points],
                "high": [None if p is None else p.high for p in points],
                "counts": [None if p is None else [p.successes, p.count] for p in points],
            }
        )
    return {
        "kind": "history",
        # one short line under each point: the variant's letter and the day and time
        "labels": [f"{variants[e.variant]} {e.started_at:%m-%d %H:%M}" for e in entries],
        "meta": [
            f"{e.run_id} · variant {variants[e.variant]} · {verdict_kind(e) or 'not checked'}"
            + (" · pinned baseline" if e.pinned else "")
            for e in entries
        ],
        "point_styles": [POINT_STYLES.get(verdict_kind(e), "circle") for e in entries],
        "point_sizes": [PINNED_SIZE if e.pinned else POINT_SIZE for e in entries],
        # Trend lines never join two runs of different variants (see reval.js).
        "variants": [e.variant_key for e in entries],
        "series": series,
    }


def _letter(i: int) -> str:
    letters = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def render_history_html(history: History, *, assets_url: str | None = None) -> str:
    """One set × retriever over time (``runs history --format html``)."""
    view = history_view(history)
    return render_page("history.html.j2", assets_url=assets_url, view=view, **page_context())
