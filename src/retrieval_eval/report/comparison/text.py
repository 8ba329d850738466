"""``runs compare`` for people: the runs, their metrics against the reference, the
breakdowns side by side, rank overlap and the per-question grid.

Every run gets its variant's letter (A is the reference's; a variant's later runs are A2,
A3: see ``report.run_names``) used as a column heading throughout.
"""

from __future__ import annotations

from rich.console import Console

from retrieval_eval.comparison.results import (
    Cell,
    Comparison,
    QuestionsShown,
    RunColumn,
    RunDelta,
    SignificanceTest,
)
from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.report.comparison.json_format import shown_questions
from retrieval_eval.report.fit_table import Column, Drop, Step, fitted_table
from retrieval_eval.report.model import question_text
from retrieval_eval.report.run_names import NAME_LABEL, names_of
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.safe_text import short, visible
from retrieval_eval.report.text_style import Style, string_console

_RATE_K = {TOP1_HIT_RATE: 1, TOP3_HIT_RATE: 3}
_NAMES = {TOP1_HIT_RATE: "top-1", TOP3_HIT_RATE: "top-3"}


#: The compared runs' table, and what gives way, in this order, on a narrow terminal: the
#: p95 and p50 latencies, the question counts, the error counts and the state are left
#: out. Run ids never wrap; the variant wraps at spaces.
RUNS_COLUMNS = (
    Column(""),
    Column("run"),
    Column("variant", wrap=True),
    Column("state"),
    Column("questions", "right"),
    Column("errors", "right"),
    Column("p50 ms", "right"),
    Column("p95 ms", "right"),
)
RUNS_STEPS: tuple[Step, ...] = (
    Drop("p95 ms"),
    Drop("p50 ms"),
    Drop("questions"),
    Drop("errors"),
    Drop("state"),
)

#: Longest question text a comparison table shows whole.
SHOWN_TEXT_CHARS = 100


def render_comparison_text(
    comparison: Comparison,
    questions: QuestionsShown = QuestionsShown.DISAGREE,
    *,
    color: bool = False,
    width: int = 120,
) -> str:
    console, buffer = string_console(width, color)
    style = Style(color)
    names = [n.letter for n in names_of(comparison.runs)]
    _runs(console, comparison, names, style)
    _metrics(console, comparison, names, style)
    _groups(console, comparison, names, style)
    _overlap(console, comparison, names, style)
    _questions(console, comparison, names, style, questions)
    text = buffer.getvalue()
    return text if color else "".join(line.rstrip() + "\n" for line in text.splitlines())


def _runs(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    first = c.runs[0]
    console.print(
        f"{style.heading('compare')} {len(c.runs)} runs of set {escape(first.set_name)}; "
        f"reference A = {escape(c.reference_run_id)}"
    )
    verdicts = any(v.verdict is not None for v in c.versus)
    rows = []
    for i, (tag, run) in enumerate(zip(names, c.runs, strict=True)):
        latency = run.latency
        verdict = c.versus[i - 1].verdict if i else None
        extra = [] if not verdicts else ["" if verdict is None else verdict.kind.value]
        rows.append([
            tag,
            short(run.run_id),
            visible(_variant(run)),
            run.state,
            str(run.question_count),
            str(run.errors),
            "-" if latency is None else f"{latency.p50_ms:.1f}",
            "-" if latency is None else f"{latency.p95_ms:.1f}",
            *extra,
        ])  # fmt: skip
    columns = RUNS_COLUMNS + ((Column("verdict vs A"),) if verdicts else ())
    table = fitted_table(style, columns, rows, console.width, RUNS_STEPS)
    console.print(table)
    for item in c.incomparable:
        console.print(style.warn(f"incomparable, left out: {escape(item.run_id)}"))
        for reason in item.reasons:
            console.print(f"  - {escape(reason)}")
    for versus in c.versus:
        for note in versus.notes:
            console.print(style.warn(f"{escape(versus.run_id)}: {escape(note)}"))


def _variant(run: RunColumn) -> str:
    """The run's variant, after the name the user gave it (``--label name=...``)."""
    given = run.labels.get(NAME_LABEL)
    return f"{given} · {run.variant}" if given else run.variant


def _metrics(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    s = c.settings
    table = style.table(title=None)
    for column in ("metric", "run", "value", "95% interval", "n", "Δ vs A", "Δ 95% interval",
                   "McNemar p", "p (Holm)"):  # fmt: skip
        left = column in ("metric", "run")
        table.add_column(column, justify="left" if left else "right")
    for metric in c.metric_names:
        for i, run in enumerate(c.runs):
            estimate = run.metrics.intervals.get(metric)
            row = [
                _NAMES.get(metric, metric) if i == 0 else "",
                names[i],
                _fmt(run.metrics.values.get(metric)),
                "" if estimate is None else f"{estimate.low:.3f}-{estimate.high:.3f}",
                "" if estimate is None else f"{estimate.successes}/{estimate.count}",
            ]
            if i == 0:
                row += ["", "", "", ""]
            else:
                versus = c.versus[i - 1]
                delta = next(d for d in versus.deltas if d.metric == metric)
                test = next((t for t in versus.tests if t.k == _RATE_K.get(metric)), None)
                row += [*_delta_cells(delta), *_test_cells(test, style)]
            table.add_row(*row)
        if metric != c.metric_names[-1]:
            table.add_section()
    console.print()
    console.print(style.heading("metrics against A"))
    console.print(table)
    console.print(
        f"Δ intervals: {s.confidence:.0%} paired bootstrap over questions scored in both "
        f"runs ({s.bootstrap_resamples} resamples, seed {s.bootstrap_seed}). McNemar: exact, "
        f"on the top-1 / top-3 flips against A, with Holm's correction across the "
        f"{len(c.versus)} runs compared (significant: p (Holm) < {s.alpha:g}, marked *)."
    )


def _delta_cells(delta: RunDelta) -> list[str]:
    value = delta.delta
    interval = delta.interval
    return [
        "-" if value is None else f"{value:+.3f}",
        "" if interval is None else f"{interval.low:+.3f}..{interval.high:+.3f}",
    ]


def _test_cells(test: SignificanceTest | None, style: Style) -> list[str]:
    if test is None:
        return ["", ""]
    mark = style.bad(" *") if test.significant else ""
    return [f"{test.p_value:.4f}", f"{test.p_holm:.4f}{mark}"]


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _groups(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    if not c.groups:
        return
    table = style.table(title=None)
    table.add_column("group")
    for tag in names:
        table.add_column(f"{tag} top-1 / top-3 (n)", justify="right")
    for group in c.groups:
        table.add_row(f"{group.kind}:{escape(group.name)}", *map(_group_cell, group.metrics))
    console.print()
    console.print(style.heading("by form and hard class"))
    console.print(table)


def _group_cell(metrics: GroupMetrics | None) -> str:
    if metrics is None:
        return "-"
    top1, top3 = metrics.values.get(TOP1_HIT_RATE), metrics.values.get(TOP3_HIT_RATE)
    return f"{_fmt(top1)} / {_fmt(top3)} ({metrics.count})"


def _overlap(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    if not c.versus:
        return
    s = c.settings
    console.print()
    console.print(
        style.heading("rank overlap against A")
        + f" (top-{s.overlap_k} distinct documents; RBO persistence p = {s.rbo_p:g})"
    )
    table = style.table(title=None)
    for column in ("run", "questions", "mean Jaccard", "mean RBO", "identical top-k"):
        table.add_column(column, justify="left" if column == "run" else "right")
    for tag, versus in zip(names[1:], c.versus, strict=True):
        o = versus.overlap
        table.add_row(tag, str(o.questions), _fmt(o.mean_jaccard), _fmt(o.mean_rbo),
                      str(o.identical))  # fmt: skip
    console.print(table)


def _questions(
    console: Console, c: Comparison, names: list[str], style: Style, shown: QuestionsShown
) -> None:
    rows = shown_questions(c, shown)
    console.print()
    console.print(
        f"{c.disagreements} of {len(c.questions)} questions differ between the runs"
        + ("" if shown is not QuestionsShown.NONE else " (--questions none)")
    )
    if not rows:
        return
    table = style.table(title=None)
    table.add_column("question", overflow="fold")
    table.add_column("expected", overflow="fold")
    for tag in names:
        table.add_column(tag, overflow="fold")
    for tag in names[1:]:
        table.add_column(f"{tag} vs A J/RBO", justify="right")
    for row in rows:
        cells = [_cell(cell, docs, style)
                 for cell, docs in zip(row.cells, row.top_documents, strict=True)]  # fmt: skip
        overlap = ["-" if o is None else f"{o.jaccard:.2f}/{o.rbo:.2f}" for o in row.overlap]
        expected = ", ".join(row.expected_document_ids) or "(none)"
        asked = escape(question_text(row.question_text), SHOWN_TEXT_CHARS)
        table.add_row(f"{escape(row.question_id)} “{asked}”", escape(expected), *cells, *overlap)
    console.print(table)


def _cell(cell: Cell, documents: tuple[str, ...], style: Style) -> str:
    label = {
        Cell.HIT1: style.good("hit@1"),
        Cell.HIT3: style.good("hit@3"),
        Cell.MISS: style.bad("miss"),
        Cell.ERROR: style.warn("error"),
        Cell.ABSENT: "absent",
    }[cell]
    if cell in (Cell.ERROR, Cell.ABSENT):
        return label
    return f"{label} {escape(' '.join(documents) or '(nothing)')}"
