"""The run view: what the HTML report and ``reval ui`` show for one run.

The view only lays out figures the library already computed (rates and their Wilson
intervals, latency percentiles, the verdict); it derives nothing statistical. Charts get
their data as plain JSON-able dicts, read by ``assets/reval.js``.

Question rows carry the *scored* distinct documents (the best ``max(ks)``) rather than
every raw id, which keeps a 1,000-question report well under a megabyte.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.metrics import GroupMetrics, RateEstimate
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.regression.unjudged import unjudged_line
from retrieval_eval.regression.verdict_records import RunReport, Verdict
from retrieval_eval.report.baseline_notes import report_notes
from retrieval_eval.report.html.measures import RunMeasures, run_measures
from retrieval_eval.report.html.page import page_context, render_page
from retrieval_eval.report.judged_view import JudgedTable, judged_table
from retrieval_eval.report.model import duration_s, question_flips, retriever_label, run_title
from retrieval_eval.scoring.judged import judged_at_k

#: The headline rates, as the JSON report names them, and how people say them.
HEADLINE = ((TOP1_HIT_RATE, "top-1"), (TOP3_HIT_RATE, "top-3"))
#: Error kind of a response that broke the retriever contract.
CONTRACT = "contract"


@dataclass(frozen=True, slots=True)
class Headline:
    metric: str
    label: str
    estimate: RateEstimate | None


@dataclass(frozen=True, slots=True)
class QuestionRow:
    """One question as the table shows it; ``result`` is hit1 | hit3 | miss | error."""

    question_id: str
    form: str
    hard_class: str
    expected: tuple[str, ...]
    #: Scored distinct documents in rank order, each with what the labels say of it:
    #: "expected", "judged" (judged, below the relevance level) or "unjudged" (no
    #: judgment; only told apart from "judged" when the set records judgments).
    returned: tuple[tuple[str, str], ...]
    more_returned: int
    top1: bool | None
    top3: bool | None
    latency_ms: float | None
    result: str
    error: str
    contract_breach: bool
    flipped: str
    #: The question as asked; None for a run stored before texts were kept.
    text: str | None = None


@dataclass(frozen=True, slots=True)
class RunView:
    anchor: str
    title: str
    run_id: str | None
    set_name: str
    retriever: str
    target: str
    state: str
    started_at: str
    duration_s: float
    labels: Mapping[str, str]
    question_count: int
    errors: int
    contract_breaches: int
    underfilled: int
    headline: tuple[Headline, ...]
    verdict: Verdict | None
    #: Beside the verdict: a change of variant, the drift reference, an acceptance.
    baseline_notes: tuple[str, ...]
    #: The verdict's line on lost hits resting on unjudged documents, if any.
    unjudged: str | None
    by_form: dict[str, Any]
    by_hard_class: dict[str, Any]
    latency: dict[str, Any] | None
    questions: tuple[QuestionRow, ...]
    forms: tuple[str, ...]
    hard_classes: tuple[str, ...]
    other_metrics: tuple[tuple[str, float], ...]
    #: Whether the set records judgments, so unjudged documents are marked apart.
    graded: bool = False
    #: Judged@k overall, by form and by hard class; None unless the set records
    #: judgments (``judged.html.j2`` lays it out).
    judged: JudgedTable | None = None
    #: The IR measures the run stored (``reval eval --measures``); None: none asked.
    measures: RunMeasures | None = None


def run_view(report: RunReport, index: int = 0) -> RunView:
    run = report.run
    flips = question_flips(report)
    depth = max(run.parameters.ks)
    graded = bool(run.judgments)  # plain labels judge nothing beyond the expected ids
    rows = tuple(
        _row(q, depth, flips.get(q.question_id, []), run.grades_of(q) if graded else None)
        for q in run.questions
    )
    return RunView(
        anchor=f"run-{index}",
        title=run_title(run),
        run_id=run.run_id,
        set_name=run.set_name,
        retriever=retriever_label(run),
        target=run.retriever_target,
        state=run.state.value,
        started_at=f"{run.started_at:%Y-%m-%d %H:%M:%S %Z}".strip(),
        duration_s=duration_s(run),
        labels=dict(run.labels),
        question_count=len(run.questions),
        errors=run.error_count,
        contract_breaches=sum(r.contract_breach for r in rows),
        underfilled=run.underfilled_count,
        headline=tuple(Headline(m, label, run.metrics.intervals.get(m)) for m, label in HEADLINE),
        verdict=report.verdict,
        baseline_notes=tuple(report_notes(report)),
        unjudged=None if report.verdict is None else unjudged_line(report.verdict, run.run_id),
        by_form=rates_chart(run.by_form, "form"),
        by_hard_class=rates_chart(run.by_hard_class, "hard class"),
        latency=_latency_chart(report),
        questions=rows,
        forms=tuple(sorted({r.form for r in rows})),
        hard_classes=tuple(sorted({r.hard_class for r in rows})),
        other_metrics=tuple(
            (name, value)
            for name, value in run.metrics.values.items()
            if name not in dict(HEADLINE)
        ),
        graded=graded,
        judged=judged_table([judged_at_k(run)]),
        measures=run_measures(run.measures, run.measure_convention),
    )


def rates_chart(groups: Mapping[str, GroupMetrics], axis: str) -> dict[str, Any]:
    """Grouped bars (top-1, top-3 per group) with their 95% intervals and counts."""
    series = []
    for metric, label in HEADLINE:
        points = [groups[name].intervals.get(metric) for name in groups]
        series.append(
            {
                "label": label,
                "metric": metric,
                "values": [None if p is None else p.rate for p in points],
                "low": [None if p is None else p.low for p in points],
                "high": [None if p is None else p.high for p in points],
                "counts": [None if p is None else [p.successes, p.count] for p in points],
            }
        )
    return {"kind": "rates", "axis": axis, "categories": list(groups), "series": series}


def _latency_chart(report: RunReport) -> dict[str, Any] | None:
    """The empirical distribution of answered questions' latencies (an ECDF) with the
    run's own p50/p95/p99 marked."""
    summary = report.run.latency
    if summary is None:
        return None
    values = sorted(
        q.latency_ms for q in report.run.questions if q.error is None and q.latency_ms is not None
    )
    return {
        "kind": "ecdf",
        "values": [round(v, 3) for v in values],
        "marks": {"p50": summary.p50_ms, "p95": summary.p95_ms, "p99": summary.p99_ms},
        "mean": summary.mean_ms,
        "max": summary.max_ms,
        "count": summary.count,
    }


def _row(
    q: QuestionOutcome, depth: int, flips: list[str], grades: Mapping[str, int] | None
) -> QuestionRow:
    expected = set(q.expected_document_ids)
    returned = tuple(
        (doc, _label_state(doc, expected, grades)) for doc in q.ranked_document_ids[:depth]
    )
    if q.error is not None:
        result = "error"
    elif q.top1_hit:
        result = "hit1"
    elif q.top3_hit:
        result = "hit3"
    else:
        result = "miss"
    return QuestionRow(
        question_id=q.question_id,
        form=q.form.value,
        hard_class=q.hard_class or "",
        expected=q.expected_document_ids,
        returned=returned,
        more_returned=max(0, len(q.ranked_document_ids) - depth),
        top1=q.top1_hit,
        top3=q.top3_hit,
        latency_ms=q.latency_ms,
        result=result,
        error="" if q.error is None else f"{q.error.kind}: {q.error.message}",
        contract_breach=q.error is not None and q.error.kind == CONTRACT,
        flipped=", ".join(flips),
        text=q.question_text,
    )


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


def _label_state(doc: str, expected: set[str], grades: Mapping[str, int] | None) -> str:
    if doc in expected:
        return "expected"
    if grades is None or doc in grades:
        return "judged"
    return "unjudged"
