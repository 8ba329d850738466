"""Render reports in a chosen format and write them where the user asked."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from retrieval_eval.errors import InputError
from retrieval_eval.report.model import RunReport

FILE_WIDTH = 120


def render(
    reports: Sequence[RunReport],
    fmt: str,
    *,
    color: bool = False,
    width: int = FILE_WIDTH,
    warnings: Sequence[str] = (),
) -> str:
    if fmt == "json":
        from retrieval_eval.report.json_report import render_json

        return render_json(reports, warnings)
    if fmt == "junit":
        from retrieval_eval.report.junit import render_junit

        return render_junit(reports)
    if fmt == "markdown":
        from retrieval_eval.report.markdown import render_markdown

        return render_markdown(reports, warnings)
    from retrieval_eval.report.terminal import render_text

    return render_text(reports, color=color, width=width, warnings=warnings)


def terminal_width() -> int:
    return max(80, min(shutil.get_terminal_size((FILE_WIDTH, 24)).columns, 160))


def emit_report(
    reports: Sequence[RunReport], fmt: str, output: Path | None, warnings: Sequence[str] = ()
) -> None:
    """``--output``: the report goes to the file and the text report to stdout; without
    it, the report goes to stdout (coloured only on a terminal)."""
    if output is not None:
        if fmt == "json":  # written piece by piece: a big run never exists as one string
            write_json_file(output, reports, warnings)
        else:
            write_file(output, render(reports, fmt, warnings=warnings))
        fmt = "text"
    elif fmt == "json":
        from retrieval_eval.report.json_report import write_json

        write_json(reports, sys.stdout, warnings)
        return
    tty = sys.stdout.isatty()
    width = terminal_width() if tty else FILE_WIDTH
    click.echo(render(reports, fmt, color=tty, width=width, warnings=warnings), nl=False)


def write_json_file(path: Path, reports: Sequence[RunReport], warnings: Sequence[str]) -> None:
    from retrieval_eval.report.json_report import write_json

    try:
        with path.open("w", encoding="utf-8") as f:
            write_json(reports, f, warnings)
    except OSError as e:
        raise InputError(f"cannot write --output {path}: {e.strerror or e}") from e


def write_file(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write --output {path}: {e.strerror or e}") from e
