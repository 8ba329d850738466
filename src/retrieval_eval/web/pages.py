"""The viewer's pages: read the store, build the library's data, render the shared views.

Nothing statistical is computed here: comparisons and histories come from
``retrieval_eval.comparison``, run figures from the stored run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from starlette.requests import Request

from retrieval_eval.comparison.compare import compare_runs
from retrieval_eval.comparison.history import build_history
from retrieval_eval.comparison.label_versions import ALL, select_labels, shown_label
from retrieval_eval.errors import InputError, RevalError, UnknownNameError
from retrieval_eval.records.run import RunState
from retrieval_eval.regression.stored import stored_verdict
from retrieval_eval.regression.verdict_records import RunReport, Thresholds, VerdictKind
from retrieval_eval.report.comparison.html_view import comparison_view
from retrieval_eval.report.history.html_view import history_view
from retrieval_eval.report.html.page import page_context, render_page
from retrieval_eval.report.run.html_view import run_view
from retrieval_eval.report.run.json_format import runs_to_document
from retrieval_eval.store.store import RunStore
from retrieval_eval.web.judging import JudgingDesk

ASSETS_URL = "/assets"
#: Scripts only some pages load, from ``web/judging/assets`` (the report's own are in
#: ``report.html.page``).
PAGE_SCRIPTS = ("judge.js",)
#: The judging page's templates and script live with the judging code.
JUDGING = "retrieval_eval.web.judging"
LIMITS = (50, 200, 1000)
#: How many runs a history page loads (newest first): ``?limit=``, the first by default.
HISTORY_LIMITS = (20, 50, 200)
#: Runs one comparison page takes at most.
MAX_COMPARED = 12


@dataclass(frozen=True, slots=True)
class RunFilters:
    """The runs list's query: each field as typed in the form ("" = any)."""

    set: str = ""
    retriever: str = ""
    label: str = ""
    state: str = ""
    verdict: str = ""
    limit: int = LIMITS[0]

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> RunFilters:
        filters = cls(
            set=query.get("set", "").strip(),
            retriever=query.get("retriever", "").strip(),
            label=query.get("label", "").strip(),
            state=query.get("state", ""),
            verdict=query.get("verdict", ""),
            limit=_limit(query.get("limit", "")),
        )
        _choice(filters.state, RunState, "state")
        _choice(filters.verdict, VerdictKind, "verdict")
        return filters

    def labels(self) -> dict[str, str] | None:
        if not self.label:
            return None
        key, sep, value = self.label.partition("=")
        if not sep or not key.strip():
            raise InputError(f"label filter {self.label!r} is not KEY=VALUE")
        return {key.strip(): value}


def runs_page(store: RunStore, request: Request) -> str:
    filters = RunFilters.from_query(request.query_params)
    runs = store.list_runs(
        set_name=filters.set or None,
        retriever=filters.retriever or None,
        labels=filters.labels(),
        state=RunState(filters.state) if filters.state else None,
        verdict=filters.verdict or None,
        limit=filters.limit,
    )
    return _page(
        "runs.html.j2",
        runs=runs,
        filters=filters,
        states=[s.value for s in RunState],
        verdicts=[v.value for v in VerdictKind],
        store_url=store.url,
    )


def run_page(store: RunStore, request: Request) -> str:
    stored = store.get_stored(request.path_params["run_id"])
    view = run_view(RunReport(stored.run, stored_verdict(stored), stored.acceptance))
    return _page("run.html.j2", view=view, identifier=stored.run.retriever.identifier)


def run_document(store: RunStore, run_id: str) -> dict[str, Any]:
    """The run as ``runs show --format json`` writes it."""
    stored = store.get_stored(run_id)
    return runs_to_document([RunReport(stored.run, stored_verdict(stored), stored.acceptance)])


def history_page(store: RunStore, request: Request) -> str:
    set_name = request.query_params.get("set", "").strip()
    retriever = request.query_params.get("retriever", "").strip()
    if not set_name or not retriever:
        raise InputError("history needs ?set=SET&retriever=RETRIEVER")
    limit = _limit(request.query_params.get("limit", ""), HISTORY_LIMITS)
    # The chart and the table need each run's stored figures only; the flaky and
    # never-hit questions need every shown run's outcomes, read when asked for.
    questions = request.query_params.get("questions") == "1"
    stored = store.history(set_name, retriever, limit=limit, outcomes=questions)
    label_version = request.query_params.get("label_version", "").strip() or ALL
    shown = select_labels(stored, label_version)
    if not stored:  # a 404 page naming what was asked (a history of nothing draws nothing)
        raise UnknownNameError(
            "set × retriever",
            f"{set_name} × {retriever}",
            hint="no runs stored; the runs list shows the stored ones",
        )
    history = build_history(
        set_name, retriever, shown, labels_shown=shown_label(shown, label_version)
    )
    view = history_view(history, questions=questions, limit=limit)
    return _page("history.html.j2", view=view)


def compare_page(store: RunStore, request: Request) -> str:
    """The runs named by ``?run=ID`` (repeated), the oldest as the reference."""
    ids = list(dict.fromkeys(request.query_params.getlist("run")))
    if not 2 <= len(ids) <= MAX_COMPARED:
        raise InputError(f"pick between 2 and {MAX_COMPARED} runs to compare, got {len(ids)}")
    runs = sorted((store.get(run_id) for run_id in ids), key=lambda r: r.started_at)
    comparison = compare_runs(runs, thresholds=Thresholds())
    return _page("comparison.html.j2", view=comparison_view(comparison))


def judge_page(desk: JudgingDesk, key: str) -> str:
    data = desk.page_data(key)
    return _page("judge.html.j2", data=data, script=f"{ASSETS_URL}/judge.js", package=JUDGING)


def judge_list_page(desk: JudgingDesk) -> str:
    return _page("judge_list.html.j2", keys=list(desk.sets), package=JUDGING)


def error_page(error: RevalError) -> str:
    return _page("error.html.j2", title="Cannot show that", message=str(error))


def _page(template: str, *, package: str | None = None, **context: Any) -> str:
    return render_page(
        template, assets_url=ASSETS_URL, package=package, **page_context(), **context
    )


def _limit(text: str, choices: tuple[int, ...] = LIMITS) -> int:
    try:
        value = int(text)
    except ValueError:
        return choices[0]
    return value if value in choices else choices[0]


def _choice(value: str, vocabulary: type[StrEnum], what: str) -> None:
    allowed = [v.value for v in vocabulary]
    if value and value not in allowed:
        raise InputError(f"unknown {what} {value!r}; choose one of {', '.join(allowed)}")
