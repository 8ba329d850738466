"""The regression part of the human report: verdict, deltas, flips and the paired test."""

from __future__ import annotations

from rich.console import Console

from retrieval_eval.regression.unjudged import unjudged_line
from retrieval_eval.regression.verdict_records import (
    Flip,
    FlipDirection,
    MetricDelta,
    Verdict,
    VerdictKind,
)
from retrieval_eval.report import baseline_notes
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.safe_text import short
from retrieval_eval.report.text_style import Style
from retrieval_eval.store.stored_run import Acceptance, Accepted

#: Up to this many deltas are all shown; beyond, only overall ones and regressions.
ALL_DELTAS_UP_TO = 12
MAX_FLIPS = 50
SHOWN_DOCUMENTS = 3


def render_verdict(
    console: Console,
    verdict: Verdict,
    style: Style,
    *,
    title: str = "",
    acceptance: Acceptance | None = None,
    accepted: Accepted | None = None,
    run_id: str | None = None,
) -> None:
    kind = verdict.kind
    label = kind.value.upper()
    mark = (
        style.bad(label)
        if verdict.fails()
        else (style.good(label) if kind is VerdictKind.PASS else style.warn(label))
    )
    against = f" vs baseline {escape(verdict.baseline_run_id)}" if verdict.baseline_run_id else ""
    console.print(f"{style.heading(title or 'regression verdict')}: {mark}{against}")
    for note in baseline_notes.notes(verdict, acceptance, accepted=accepted, run_id=run_id):
        console.print(f"  {escape(note)}")
    for reason in verdict.reasons:
        console.print(f"  - {escape(reason)}")
    unjudged = unjudged_line(verdict, run_id)
    if unjudged:  # one line, never wrapped: it ends with a command to copy
        console.print(f"  {escape(unjudged)}", soft_wrap=True)
    if verdict.incomparable_parts:
        console.print("  differs: " + escape(", ".join(verdict.incomparable_parts)))
    _deltas(console, verdict, style)
    _flips(console, verdict.flips, style)
    for t in verdict.tests:
        significance = "significant" if t.significant else "not significant"
        console.print(
            f"McNemar top-{t.k}: {t.wins} miss->hit, {t.losses} hit->miss, {t.ties} unchanged; "
            f"p = {t.p_value:.4f} ({significance} at 0.05)"
        )
    for warning in verdict.warnings:
        console.print(style.warn(f"warning: {escape(warning)}"))


def _deltas(console: Console, verdict: Verdict, style: Style) -> None:
    deltas = list(verdict.deltas)
    if not deltas:
        return
    hidden = 0
    if len(deltas) > ALL_DELTAS_UP_TO:
        shown = [d for d in deltas if d.group == "overall" or d.regressed]
        hidden, deltas = len(deltas) - len(shown), shown
    table = style.table(title=None)
    for column in ("group", "metric", "baseline", "current", "delta", "threshold", ""):
        justify = "left" if column in ("group", "metric", "") else "right"
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for d in deltas:
        table.add_row(
            escape(d.group),
            escape(d.metric),
            _num(d, d.baseline),
            _num(d, d.current),
            _signed(d),
            "" if d.threshold is None else _num(d, d.threshold),
            style.bad("REGRESSED") if d.regressed else "ok",
        )
    console.print(table)
    if hidden:
        console.print(f"({hidden} unchanged-or-within-threshold group deltas not shown)")


def _is_rate(d: MetricDelta) -> bool:
    return not d.metric.endswith("_ms")


def _num(d: MetricDelta, value: float) -> str:
    return f"{value:.3f}" if _is_rate(d) else f"{value:.1f}"


def _signed(d: MetricDelta) -> str:
    return f"{d.delta:+.3f}" if _is_rate(d) else f"{d.delta:+.1f}"


def _flips(console: Console, flips: tuple[Flip, ...], style: Style) -> None:
    for direction in FlipDirection:
        chosen = [f for f in flips if f.direction == direction]
        if not chosen:
            continue
        paint = style.bad if direction is FlipDirection.HIT_TO_MISS else style.good
        console.print(paint(f"flipped {direction}: {len(chosen)}"))
        for f in chosen[:MAX_FLIPS]:
            console.print(f"  {escape(describe_flip(f))}")
        if len(chosen) > MAX_FLIPS:
            console.print(f"  ... {len(chosen) - MAX_FLIPS} more (see --format json)")


def describe_flip(f: Flip) -> str:
    """One line: question, k, expected documents, the ranking now and before."""
    now = ", ".join(map(short, f.current_ranking[:SHOWN_DOCUMENTS])) or "(nothing)"
    before = ", ".join(map(short, f.baseline_ranking[:SHOWN_DOCUMENTS])) or "(nothing)"
    expected = ", ".join(map(short, f.expected_document_ids)) or "(nothing)"
    return f"{short(f.question_id)} @top-{f.k}: expected {expected}; now {now}; was {before}"
