"""``runs compare`` for people: the runs, their metrics against the reference, the
breakdowns side by side, each run's Judged@k (graded sets), rank overlap and the
per-question grid.

Every run gets its variant's letter (A is the reference's; a variant's later runs are A2,
A3: see ``report.run_names``) used as a column heading throughout.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from retrieval_eval.comparison.results import (
    Cell,
    Comparison,
    QuestionsShown,
    RunDelta,
    SignificanceTest,
)
from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.report.comparison.json_format import shown_questions
from retrieval_eval.report.fit_table import Column, Drop, Step, fitted_table
from retrieval_eval.report.judged_view import judged_table
from retrieval_eval.report.model import question_text
from retrieval_eval.report.run_names import NAME_LABEL, RunName, differing_parts, names_of
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.safe_text import short, visible
from retrieval_eval.report.text_style import Style, string_console
from retrieval_eval.report.variant_names import (
    FULL_PROVENANCE,
    VariantName,
    legend_lines,
)
from retrieval_eval.scoring.judged import JudgedShare

_RATE_K = {TOP1_HIT_RATE: 1, TOP3_HIT_RATE: 3}
_NAMES = {TOP1_HIT_RATE: "top-1", TOP3_HIT_RATE: "top-3"}


#: The compared runs' table, and what gives way, in this order, on a narrow terminal: the
#: p95 and p50 latencies, the question counts, the error counts and the state are left
#: out. Run ids and names never wrap; what differs between the variants follows the
#: table, one variant a line (``variant_names.legend_lines``).
RUNS_COLUMNS = (
    Column(""),
    Column("run"),
    Column("name"),
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
    named = names_of(comparison.runs)
    names = [n.letter for n in named]
    _runs(console, comparison, names, style)
    _legend(console, comparison, named)
    _metrics(console, comparison, names, style)
    _measures(console, comparison, names, style)
    _groups(console, comparison, names, style)
    _judged(console, comparison, names, style)
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
            visible(run.labels.get(NAME_LABEL, "")),
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


def _legend(console: Console, c: Comparison, named: Sequence[RunName]) -> None:
    """What differs between the compared variants, each under its letter (a variant's
    later runs, A2, share A's line); the full provenance is ``reval runs show RUN``."""
    firsts = {n.variant: n.letter for n in reversed(named)}
    variants = list(dict.fromkeys(n.variant for n in named))
    differs = differing_parts(variants)
    lines = legend_lines(
        [VariantName(firsts[v], d) for v, d in zip(variants, differs, strict=True)],
        console.width,
    )
    if lines:
        console.print(f"what differs ({FULL_PROVENANCE}):")
        for line in lines:
            console.print(escape(line), overflow="ignore", crop=False)


#: The metrics table, and what gives way on a narrow terminal: the value's interval,
#: then the unadjusted McNemar p (the Holm-adjusted one decides).
METRIC_COLUMNS = (
    Column("metric"),
    Column("run"),
    Column("value", "right"),
    Column("95% interval", "right"),
    Column("n", "right"),
    Column("Δ vs A", "right"),
    Column("Δ 95% interval", "right"),
    Column("McNemar p", "right"),
    Column("p (Holm)", "right"),
)
METRIC_STEPS: tuple[Step, ...] = (Drop("95% interval"), Drop("McNemar p"))


def _metrics(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    s = c.settings
    rows, sections = [], []
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
                row += [*_delta_cells(delta), *_test_cells(test)]
            rows.append(row)
        if metric != c.metric_names[-1]:
            sections.append(len(rows) - 1)
    table = fitted_table(style, METRIC_COLUMNS, rows, console.width, METRIC_STEPS, sections)
    console.print()
    console.print(style.heading("metrics against A"))
    console.print(table)
    console.print(
        f"Δ intervals: {s.confidence:.0%} paired bootstrap over questions scored in both "
        f"runs ({s.bootstrap_resamples} resamples, seed {s.bootstrap_seed}). McNemar: exact, "
        f"on the top-1 / top-3 flips against A, with Holm's correction across the "
        f"{len(c.versus)} runs compared (significant: p (Holm) < {s.alpha:g}, marked *)."
    )


def _measures(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    """The IR measures every run stored, one line each: value per run, Δ against A."""
    if not c.measure_names:
        return
    convention = c.runs[0].measure_convention
    console.print()
    console.print(style.heading("IR measures against A") + f" ({convention} convention)")
    for name in c.measure_names:
        cells = [f"A {_fmt(c.runs[0].measures[name].value, 4)}"]
        for tag, run, versus in zip(names[1:], c.runs[1:], c.versus, strict=True):
            delta = next(d for d in versus.deltas if d.metric == name).delta
            shift = "" if delta is None else f" ({delta:+.4f})"
            cells.append(f"{tag} {_fmt(run.measures[name].value, 4)}{shift}")
        console.print(f"  {escape(name)}: " + " · ".join(cells))


def _delta_cells(delta: RunDelta) -> list[str]:
    value = delta.delta
    interval = delta.interval
    return [
        "-" if value is None else f"{value:+.3f}",
        "" if interval is None else f"{interval.low:+.3f}..{interval.high:+.3f}",
    ]


def _test_cells(test: SignificanceTest | None) -> list[str]:
    if test is None:
        return ["", ""]
    mark = " *" if test.significant else ""
    return [f"{test.p_value:.4f}", f"{test.p_holm:.4f}{mark}"]


def _fmt(value: float | None, places: int = 3) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def _groups(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    """One row per group: its size (the reference's), then each run's top-1/top-3; a
    run that scored another number of its questions says so in its cell."""
    if not c.groups:
        return
    columns = [Column("group"), Column("n", "right"),
               *(Column(f"{tag} top-1/3", "right") for tag in names)]  # fmt: skip
    rows = []
    for group in c.groups:
        n = next((m.count for m in group.metrics if m is not None), 0)
        cells = [_group_cell(m, n) for m in group.metrics]
        rows.append([visible(f"{group.kind}:{group.name}"), str(n), *cells])
    console.print()
    console.print(style.heading("by form and hard class"))
    console.print(fitted_table(style, columns, rows, console.width, ()))


def _group_cell(metrics: GroupMetrics | None, n: int) -> str:
    if metrics is None:
        return "-"
    top1, top3 = metrics.values.get(TOP1_HIT_RATE), metrics.values.get(TOP3_HIT_RATE)
    count = "" if metrics.count == n else f" ({metrics.count})"
    return f"{_fmt(top1)}/{_fmt(top3)}{count}"


def _judged(console: Console, c: Comparison, names: list[str], style: Style) -> None:
    """Each run's Judged@k overall and per group, when its set records judgments: a
    candidate whose top documents the labels never judged is scored on guesses. ``n`` is
    the reference's question count, as in the breakdowns."""
    table = judged_table([run.judged for run in c.runs])
    if table is None:
        return
    columns = [Column("group"), Column("n", "right"),
               *(Column(f"{tag} {table.name}", "right") for tag in names)]  # fmt: skip
    rows = []
    for row in table.rows:
        n = next((s.count for s in row.shares if s is not None), 0)
        rows.append([visible(row.label), str(n), *(_judged_cell(s, n) for s in row.shares)])
    console.print()
    console.print(
        style.heading(f"{table.name}: how much of each run's top {table.k} the set judged")
    )
    console.print(fitted_table(style, columns, rows, console.width, ()))
    console.print(table.meaning)


def _judged_cell(share: JudgedShare | None, n: int) -> str:
    """``0.722 (2 unjudged)``, with the run's own question count when it is not ``n``."""
    if share is None or share.value is None:
        return "-"
    count = "" if share.count == n else f", {share.count} q"
    return f"{share.value:.3f} ({share.unjudged} unjudged{count})"


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
    """One block per question: its id and text on a line of their own (wrapped at spaces),
    what is expected, then a line per run: its hit, top documents and overlap with A."""
    rows = shown_questions(c, shown)
    console.print()
    console.print(
        f"{c.disagreements} of {len(c.questions)} questions differ between the runs"
        + ("" if shown is not QuestionsShown.NONE else " (--questions none)")
        + ("; per run: hit, top documents, Jaccard/RBO against A" if rows else "")
    )
    width = max(len(tag) for tag in names)
    for row in rows:
        asked = escape(question_text(row.question_text), SHOWN_TEXT_CHARS)
        console.print(f"{escape(row.question_id)} “{asked}”")
        expected = ", ".join(row.expected_document_ids) or "(none)"
        console.print(f"  expected: {escape(expected)}")
        overlaps = [None, *row.overlap]
        for tag, cell, docs, o in zip(names, row.cells, row.top_documents, overlaps,
                                      strict=True):  # fmt: skip
            against = "" if o is None else f" · {o.jaccard:.2f}/{o.rbo:.2f}"
            console.print(f"  {tag.ljust(width)}  {_cell(cell, docs, style)}{against}")


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
    return f"{label} {escape(', '.join(documents) or '(nothing)')}"
