"""The human report: rich tables on a terminal, the same content as plain text elsewhere.

Per run: a header (set, retriever, state), aggregate rates with 95% intervals and
counts, no-answer figures, both breakdowns, latency, errors, Judged@k (when the set records
judgments), the questions (every one on a small set; only misses and errors on a large
one, with the top distinct documents a miss got), then the regression verdict with its
flips (see ``verdict_text``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.padding import Padding
from rich.table import Table

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.baseline_notes import acceptance_line, accepted_line
from retrieval_eval.report.fit_table import keep_words_whole
from retrieval_eval.report.judged_view import group_label, meaning, value_text
from retrieval_eval.report.model import (
    TEXT_NOT_STORED,
    latency_lines,
    ordered_metrics,
    question_flips,
    rate_names,
    retriever_label,
)
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run.verdict_text import render_verdict
from retrieval_eval.report.safe_text import SHOWN_ID_CHARS, short
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.text_style import Style, string_console
from retrieval_eval.scoring.judged import JudgedAtK, judged_at_k, judged_rows

if TYPE_CHECKING:  # the label reader loads only when a breakdown is asked for
    from retrieval_eval.report.label_source import BySource

#: Sets up to this size list every question; larger ones list misses and errors only.
ALL_QUESTIONS_UP_TO = 50
#: At most this many question rows per run (the JSON report has them all).
MAX_QUESTION_ROWS = 100
SHOWN_DOCUMENTS = 3
#: Longest error message a question row shows (the JSON report keeps it whole).
SHOWN_MESSAGE_CHARS = 300
#: Under a stored complete run saved without a regression check (``RunStore.save(run)``).
UNJUDGED_NOTE = (
    "unjudged: saved without a regression check, so it is a baseline only if a person "
    "accepts it (reval runs accept) or pins it (reval runs pin)"
)


def render_text(
    reports: Sequence[RunReport],
    *,
    color: bool = False,
    width: int = 100,
    warnings: Sequence[str] = (),
    by_source: Sequence[BySource | None] = (),
) -> str:
    """The report as a string; ANSI styles only when ``color`` (a terminal); each run's
    ``by_source`` groups (in run order) as a breakdown table of their own."""
    console, buffer = string_console(width, color)
    style = Style(color)
    for i, report in enumerate(reports):
        if i:
            console.print()
        render_run(console, report, style, by_source[i] if i < len(by_source) else None)
    for warning in warnings:
        console.print(style.warn(f"warning: {escape(warning)}"))
    text = buffer.getvalue()
    return text if color else "".join(line.rstrip() + "\n" for line in text.splitlines())


def render_run(
    console: Console, report: RunReport, style: Style, by_source: BySource | None = None
) -> None:
    run = report.run
    _header(console, run, style)
    console.print()
    console.print(_aggregates(run.metrics, style))
    if run.measures:
        console.print()
        console.print(_measures(run, style))
    _no_answer_and_flags(console, run)
    _latency(console, run)
    breakdowns = [("form", run.by_form), ("hard class", run.by_hard_class)]
    for title, groups in [*breakdowns, ("label source", by_source or {})]:
        if groups:
            console.print()
            console.print(_breakdown(title, groups, style))
    judged = judged_at_k(run)
    if judged is not None:
        console.print()
        _judged(console, judged, style)
    console.print()
    _questions(console, report, style)
    if report.verdict is not None:
        console.print()
        render_verdict(console, report.verdict, style, acceptance=report.acceptance,
                       accepted=report.accepted, run_id=run.run_id)  # fmt: skip
    elif report.acceptance is not None or report.accepted is not None:
        console.print()  # a person's acceptance, or the standing a rescore carried over
        for line in (accepted_line(report.accepted), acceptance_line(report.acceptance)):
            if line:
                console.print(escape(line))
    elif run.run_id and run.state is RunState.COMPLETE:
        console.print()
        console.print(UNJUDGED_NOTE)


def _header(console: Console, run: RunResult, style: Style) -> None:
    state = {
        RunState.COMPLETE: style.good("complete"),
        RunState.INCOMPLETE: style.bad(f"incomplete ({plural(run.error_count, 'error')})"),
        RunState.INTERRUPTED: style.bad("interrupted"),
    }[run.state]
    title = f"{escape(run.set_name)} × {escape(retriever_label(run))}"
    console.print(f"{style.heading(title)} — {state}")
    run_id = escape(run.run_id) if run.run_id else "not saved"
    p = run.parameters
    console.print(
        f"run {run_id} · {len(run.questions)} questions · target "
        f"{escape(run.retriever_target)} · set {escape(run.set_fingerprint[:19])}"
    )
    separator = escape(repr(p.doc_id_separator)) if p.doc_id_separator else "none"
    console.print(
        f"k={','.join(map(str, p.ks))} · limit {p.limit} (overfetch ×{p.overfetch}) · "
        f"chunk separator {separator} · finished {run.finished_at:%Y-%m-%d %H:%M:%S}"
    )
    console.print("variant: " + escape(run.retriever.variant_label(run.retriever_target)))
    if run.labels:
        console.print("labels: " + escape(", ".join(f"{k}={v}" for k, v in run.labels.items())))


def _measures(run: RunResult, style: Style) -> Table:
    """The IR measures asked for, each with its denominator (the no-answer convention
    decides which questions a mean is over)."""
    convention = "trec_eval's means" if run.measure_convention == "trec_eval" else "reval's"
    table = style.table(title=f"IR measures ({convention})")
    for column, justify in (("measure", "left"), ("value", "right"), ("mean of", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for name, m in run.measures.items():
        value = "-" if m.value is None else f"{m.value:.4f}"
        over = f"{m.count}" + (f" ({m.left_out} left out)" if m.left_out else "")
        table.add_row(escape(name), value, over)
    return table


def _aggregates(m: GroupMetrics, style: Style) -> Table:
    table = style.table(title=None)
    for column, justify in (
        ("metric", "left"),
        ("value", "right"),
        ("95% interval", "right"),
        ("hits / scored", "right"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for name in rate_names(m):
        e = m.intervals[name]
        interval = escape(f"[{e.low:.3f}, {e.high:.3f}]")
        table.add_row(escape(name), f"{e.rate:.3f}", interval, f"{e.successes}/{e.count}")
    # Rank metrics leave out no-answer questions (nothing to rank): say over how many.
    with_answer = m.count - (m.no_answer.count if m.no_answer else 0)
    for name in ordered_metrics(m.values):
        if name not in m.intervals:
            table.add_row(escape(name), f"{m.values[name]:.3f}", "", f"mean of {with_answer}")
    return table


def _no_answer_and_flags(console: Console, run: RunResult) -> None:
    na = run.metrics.no_answer
    if na is not None and na.count:
        console.print(
            f"no-answer questions: {na.count} · correctly empty {na.correctly_empty} · "
            f"returned something {na.returned_something}"
        )
    if run.error_count:
        console.print(
            f"errors: {run.error_count} (rates are over the scored questions; "
            "a failed retrieval is not scored)"
        )
    skipped = run.skipped_members
    if skipped:
        scored = len(run.questions) - run.error_count
        counts = ", ".join(f"{escape(m)} on {n} of {scored}" for m, n in sorted(skipped.items()))
        console.print(f"fusion members skipped (failed, left out of the fusion): {counts}")
    if run.not_asked_count:
        console.print(
            f"stopped asking: {run.not_asked_count} questions not asked once "
            f"{run.error_count - run.not_asked_count} retrievals had failed, more than "
            "--max-errors allows (the run is incomplete either way; --keep-asking asks "
            "every question)"
        )
    if run.underfilled_count:
        console.print(
            f"underfilled: {run.underfilled_count} questions had fewer distinct documents "
            "than the deepest k in a full response; raise --overfetch"
        )


def _breakdown(title: str, groups: Mapping[str, GroupMetrics], style: Style) -> Table:
    table = style.table(title=f"by {title}")
    for column in (title, "count", "top-1", "top-3", "errors"):
        table.add_column(column, justify="left" if column == title else "right")
    for label, g in sorted(groups.items()):
        table.add_row(
            escape(label),
            str(g.count),
            _rate(g, TOP1_HIT_RATE),
            _rate(g, TOP3_HIT_RATE),
            str(g.errors),
        )
    return table


def _judged(console: Console, judged: JudgedAtK, style: Style) -> None:
    """Judged@k overall, by form and by hard class, and what it means."""
    table = style.table(title=f"{judged.name}: how much of the top {judged.k} the set judged")
    for column in ("group", judged.name, "questions", "unjudged"):
        table.add_column(column, justify="left" if column == "group" else "right")
    for kind, name, share in judged_rows(judged):
        table.add_row(escape(group_label(kind, name)), value_text(share), str(share.count),
                      str(share.unjudged))  # fmt: skip
    console.print(table)
    console.print(meaning(judged.k))


def _rate(g: GroupMetrics, name: str) -> str:
    if name in g.intervals:
        e = g.intervals[name]
        return f"{e.rate:.3f} ({e.successes}/{e.count})"
    value = g.values.get(name)
    return "-" if value is None else f"{value:.3f}"


def _latency(console: Console, run: RunResult) -> None:
    for label, lat in latency_lines(run):
        console.print(
            f"latency ms {label}: p50 {lat.p50_ms:.1f} · p95 {lat.p95_ms:.1f} · "
            f"p99 {lat.p99_ms:.1f} · mean {lat.mean_ms:.1f} · max {lat.max_ms:.1f} "
            f"(n={lat.count})"
        )


def _questions(console: Console, report: RunReport, style: Style) -> None:
    run = report.run
    flips = question_flips(report)
    everything = len(run.questions) <= ALL_QUESTIONS_UP_TO
    rows: list[QuestionOutcome] = []  # the first rows shown; the others only counted
    listed = 0
    for q in run.questions:
        if everything or _noteworthy(q) or q.question_id in flips:
            listed += 1
            if len(rows) < MAX_QUESTION_ROWS:
                rows.append(q)
    if not rows:
        console.print(f"questions: all {len(run.questions)} hit at top-1")
        return
    title = "questions" if everything else "questions that missed or failed"
    table = style.table(title=title)
    for column in ("question", "form", "class", "top-1", "top-3", "ms", "detail"):
        table.add_column(column, justify="right" if column == "ms" else "left", overflow="fold")
    for q in rows:
        table.add_row(
            escape(q.question_id, SHOWN_ID_CHARS),
            q.form.value,
            escape(q.hard_class or "", SHOWN_ID_CHARS),
            style.hit(q.top1_hit),
            style.hit(q.top3_hit),
            "" if q.latency_ms is None else f"{q.latency_ms:.0f}",
            _detail(q, flips.get(q.question_id), style),
        )
    if keep_words_whole(console, table):
        console.print(table)
    else:  # too narrow for the table: a question a block, its text on its own lines
        console.print(style.heading(title))
        for q in rows:
            console.print(
                f"{escape(q.question_id, SHOWN_ID_CHARS)} · {q.form.value}"
                + (f" · {escape(q.hard_class, SHOWN_ID_CHARS)}" if q.hard_class else "")
                + f" · top-1 {style.hit(q.top1_hit)} · top-3 {style.hit(q.top3_hit)}"
                + ("" if q.latency_ms is None else f" · {q.latency_ms:.0f} ms")
            )
            console.print(Padding(_detail(q, flips.get(q.question_id), style), (0, 0, 0, 4)))
    if listed > MAX_QUESTION_ROWS:
        console.print(f"... {listed - MAX_QUESTION_ROWS} more (see --format json)")


def _noteworthy(q: QuestionOutcome) -> bool:
    return q.error is not None or q.top1_hit is False or bool(q.notes)


#: Longest question text the text report shows whole.
SHOWN_TEXT_CHARS = 120


def _detail(q: QuestionOutcome, flipped: list[str] | None, style: Style) -> str:
    parts = [f"“{escape(q.question_text, SHOWN_TEXT_CHARS)}”" if q.question_text is not None
             else style.dim(TEXT_NOT_STORED)]  # fmt: skip
    if q.error is not None:
        message = escape(q.error.message, SHOWN_MESSAGE_CHARS)
        parts.append(style.bad(f"ERROR {escape(q.error.kind)}: {message}"))
    elif q.top1_hit is False:
        expected = ", ".join(map(short, q.expected_document_ids)) or "(nothing)"
        got = ", ".join(map(short, q.ranked_document_ids[:SHOWN_DOCUMENTS])) or "(nothing)"
        parts.append(f"expected {escape(expected)}; got {escape(got)}")
    if q.underfilled:
        parts.append("underfilled")
    parts += [style.bad(escape(note)) for note in q.notes]
    if flipped:
        parts.append(style.bad(f"was a hit at {', '.join(flipped)}"))
    return " · ".join(parts)
