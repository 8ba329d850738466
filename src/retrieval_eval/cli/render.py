"""Write reports where the user asked: ``--output`` and the terminal."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from retrieval_eval.atomic import atomic_text, is_infrastructure, write_atomically
from retrieval_eval.errors import InfrastructureError, InputError, RevalError

if TYPE_CHECKING:  # the reports (and the regression records they show) load when one is made
    from retrieval_eval.regression.record import Recorded
    from retrieval_eval.regression.verdict_records import RunReport
    from retrieval_eval.report.label_source import BySource

#: Width of a report written to a file, and to a pipe unless ``COLUMNS`` says otherwise
#: (``report.run.render.FILE_WIDTH``).
FILE_WIDTH = 120


def terminal_width() -> int:
    """The width text views are laid out for: ``COLUMNS`` when set (a CI log can ask for
    its width), else the terminal's, else ``FILE_WIDTH`` (a pipe); between 80 and 160."""
    return max(80, min(shutil.get_terminal_size((FILE_WIDTH, 24)).columns, 160))


def emit_report(
    reports: Recorded | Sequence[RunReport],
    fmt: str,
    output: Path | None,
    warnings: Sequence[str] = (),
    by_source: Sequence[BySource | None] = (),
) -> None:
    """``--output``: the report goes to the file, and stdout gets each run's verdict and
    where the file went; without it, the report goes to stdout (coloured only on a
    terminal). ``by_source``: each run's figures by label source (``--by-source``)."""
    from retrieval_eval.report.run.render import render

    tty = sys.stdout.isatty()
    if output is not None:
        if fmt == "json":  # written piece by piece: a big run never exists as one string
            write_json_file(output, reports, warnings, by_source)
        else:
            write_file(output, render(reports, fmt, warnings=warnings, by_source=by_source))
        from retrieval_eval.regression.record import Recorded
        from retrieval_eval.report.run.brief import render_brief

        runs = reports.reports if isinstance(reports, Recorded) else reports
        click.echo(render_brief(runs, output, fmt), nl=False)
        return
    if fmt == "html" and tty:
        raise click.UsageError("--format html writes a file: add --output FILE (or redirect)")
    width = terminal_width()
    shown = render(reports, fmt, color=tty, width=width, warnings=warnings, by_source=by_source)
    click.echo(shown, nl=False)


def write_reports(
    reports: Recorded | Sequence[RunReport],
    files: Sequence[tuple[str, Path]],
    by_source: Sequence[BySource | None] = (),
) -> None:
    """``--report FORMAT:FILE``: the same runs in further formats, each to its file (a CI
    job wants the Markdown verdict, the HTML page and JUnit from one run)."""
    from retrieval_eval.regression.record import Recorded
    from retrieval_eval.report.run.render import render

    warnings = reports.warnings if isinstance(reports, Recorded) else ()
    for fmt, path in files:
        if fmt == "json":
            write_json_file(path, reports, (), by_source)
        else:
            write_file(path, render(reports, fmt, warnings=warnings, by_source=by_source))


def check_writable(path: Path) -> None:
    """``--output`` must be writable before any work is done: an ``InputError`` (exit 2)
    naming the path otherwise. The file itself is written only at the end."""
    problem = None
    if path.is_dir():
        problem = "it is a directory"
    elif not path.parent.is_dir():
        problem = f"directory {str(path.parent)!r} does not exist"
    elif path.exists() and not os.access(path, os.W_OK):
        problem = "the file is not writable"
    elif not path.exists() and not os.access(path.parent, os.W_OK | os.X_OK):
        problem = f"directory {str(path.parent)!r} is not writable"
    if problem is not None:
        raise InputError(f"cannot write --output {path}: {problem}")


def write_json_file(
    path: Path,
    reports: Recorded | Sequence[RunReport],
    warnings: Sequence[str],
    by_source: Sequence[BySource | None] = (),
) -> None:
    from retrieval_eval.regression.record import Recorded
    from retrieval_eval.report.run.json_format import write_json

    runs: Sequence[RunReport] = reports.reports if isinstance(reports, Recorded) else reports
    if isinstance(reports, Recorded):
        warnings = (*reports.warnings, *warnings)
    try:
        with atomic_text(path) as f:
            write_json(runs, f, warnings, by_source)
    except OSError as e:
        raise _not_written(path, e) from e


def write_file(path: Path, text: str) -> None:
    """``text`` to ``path``, atomically: a failure leaves the old file (or none), never
    a truncated report."""
    try:
        write_atomically(path, text.encode("utf-8"))
    except OSError as e:
        raise _not_written(path, e) from e


def _not_written(path: Path, error: OSError) -> RevalError:
    """A full disk is the machine's failure (exit 3); anything else, the path's (exit 2)."""
    message = f"cannot write --output {path}: {error.strerror or error}"
    if is_infrastructure(error):
        return InfrastructureError(f"{message}; nothing was written to it")
    return InputError(message)


def emit_html(html: str, output: Path | None) -> None:
    """An HTML page goes to ``--output`` (and its path is said), or to stdout when that is
    not a terminal."""
    if output is not None:
        write_file(output, html)
        click.echo(f"wrote {output}")
    elif sys.stdout.isatty():
        raise click.UsageError("--format html writes a file: add --output FILE (or redirect)")
    else:
        click.echo(html, nl=False)
