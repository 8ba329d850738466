"""``reval diff`` in text, JSON and Markdown: the overlap distribution of two retrievers
on unlabelled questions and the questions whose rankings moved most.

JSON: ``schema_version``, ``kind`` = ``diff``, ``retriever_a``, ``retriever_b``, ``k``,
``rbo_p``, ``compared``, ``failed``, ``identical``, ``mean_jaccard``, ``mean_rbo``,
``distribution`` (``{"low", "high", "count"}`` of RBO), ``questions`` (moved most first:
``{"id", "question", "jaccard", "rbo", "top_a", "top_b", "error_a", "error_b"}``).
"""

from __future__ import annotations

from typing import Any

from retrieval_eval.comparison.diff import Diff, DiffQuestion
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run.json_format import SCHEMA_VERSION
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.text_style import Style, string_console

SHOWN_DOCUMENTS = 5


def diff_to_dict(diff: Diff) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "diff",
        "retriever_a": diff.retriever_a,
        "retriever_b": diff.retriever_b,
        "k": diff.k,
        "rbo_p": diff.rbo_p,
        "compared": diff.compared,
        "failed": diff.failed,
        "identical": diff.identical,
        "mean_jaccard": diff.mean_jaccard,
        "mean_rbo": diff.mean_rbo,
        "distribution": [
            {"low": b.low, "high": b.high, "count": b.count} for b in diff.distribution
        ],
        "questions": [_question(q) for q in diff.questions],
    }


def _question(q: DiffQuestion) -> dict[str, Any]:
    return {
        "id": q.question_id,
        "question": q.question,
        "jaccard": q.jaccard,
        "rbo": q.rbo,
        "top_a": list(q.top_a),
        "top_b": list(q.top_b),
        "error_a": q.error_a,
        "error_b": q.error_b,
    }


def _summary(diff: Diff) -> str:
    mean_j = "-" if diff.mean_jaccard is None else f"{diff.mean_jaccard:.3f}"
    mean_r = "-" if diff.mean_rbo is None else f"{diff.mean_rbo:.3f}"
    failed = (
        f"; {plural(diff.failed, 'question')} failed on one side, left out" if diff.failed else ""
    )
    return (
        f"{plural(diff.compared, 'question')} compared over the top {diff.k} distinct "
        f"documents: mean Jaccard {mean_j}, mean RBO {mean_r} (persistence p = "
        f"{diff.rbo_p:g}); {diff.identical} identical rankings{failed}"
    )


def render_diff_text(diff: Diff, *, top: int = 10, color: bool = False, width: int = 120) -> str:
    console, buffer = string_console(width, color)
    style = Style(color)
    console.print(f"{style.heading('diff')} A = {escape(diff.retriever_a)}")
    console.print(f"     B = {escape(diff.retriever_b)}")
    console.print(escape(_summary(diff)))
    console.print()
    console.print(style.heading("RBO distribution"))
    biggest = max((b.count for b in diff.distribution), default=0) or 1
    for b in diff.distribution:
        bar = "#" * round(30 * b.count / biggest)
        closing = "]" if b.high >= 1.0 else ")"
        console.print(f"  [{b.low:.1f}, {b.high:.1f}{closing} {b.count:5d} {bar}", markup=False)
    moved = diff.moved(top)
    console.print()
    if not moved:
        console.print("no ranking moved")
    else:
        console.print(style.heading(f"moved most ({len(moved)})"))
        table = style.table(title=None)
        for column in ("question", "Jaccard", "RBO", "A top", "B top"):
            right = column in ("Jaccard", "RBO")
            table.add_column(column, justify="right" if right else "left", overflow="fold")
        for q in moved:
            table.add_row(
                escape(q.question or q.question_id),
                f"{q.jaccard:.2f}",
                f"{q.rbo:.2f}",
                escape(" ".join(q.top_a[:SHOWN_DOCUMENTS]) or "(nothing)"),
                escape(" ".join(q.top_b[:SHOWN_DOCUMENTS]) or "(nothing)"),
            )
        console.print(table)
    for q in diff.questions:
        if q.rbo is None:
            side = f"A: {q.error_a}" if q.error_a else f"B: {q.error_b}"
            console.print(style.warn(f"failed ({escape(side)}): {escape(q.question_id)}"))
    text = buffer.getvalue()
    return text if color else "".join(line.rstrip() + "\n" for line in text.splitlines())


def render_diff_markdown(diff: Diff, *, top: int = 10) -> str:
    lines = [
        f"### reval diff: `{_cell(diff.retriever_a)}` vs `{_cell(diff.retriever_b)}`",
        "",
        _cell(_summary(diff)),
        "",
        "| RBO | questions |",
        "|---|--:|",
    ]
    lines += [f"| {b.low:.1f}–{b.high:.1f} | {b.count} |" for b in diff.distribution]
    moved = diff.moved(top)
    if moved:
        lines += ["", "| question | Jaccard | RBO | A top | B top |", "|---|--:|--:|---|---|"]
        lines += [
            f"| {_cell(q.question or q.question_id)} | {q.jaccard:.2f} | {q.rbo:.2f} "
            f"| {_cell(' '.join(q.top_a[:SHOWN_DOCUMENTS]))} "
            f"| {_cell(' '.join(q.top_b[:SHOWN_DOCUMENTS]))} |"
            for q in moved
            if q.jaccard is not None and q.rbo is not None
        ]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")
