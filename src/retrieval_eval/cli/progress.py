"""A rich progress bar on a terminal (the library's Progress shape), for ``reval eval``
and for plugin commands such as ``reval bm25 index``."""

from __future__ import annotations

import os
import sys
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich loads with the first bar, not with every command that could show one
    from rich.progress import Progress, TaskID


def wants_progress(fmt: str) -> bool:
    """Only for people: a terminal on stderr, a human format on standard output (``fmt``
    is what goes there: the text report when ``--output`` takes the chosen format), and
    not in CI (``CI`` set)."""
    if fmt in ("json", "junit", "html") or os.environ.get("CI"):
        return False
    return sys.stderr.isatty()


class RichProgress:
    """One bar per task (set × retriever, or indexing step); the ``Progress`` protocol."""

    def __init__(self) -> None:
        self._progress: Progress | None = None

    def __enter__(self) -> RichProgress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def start(self, label: str, total: int) -> TaskID:
        """Shown from the first task on, so that an early error prints nothing else."""
        from retrieval_eval.report.safe_text import markup_safe

        if self._progress is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._progress.start()
        return self._progress.add_task(markup_safe(label, 120), total=total)

    def advance(self, task: object, n: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(task, n)  # type: ignore[arg-type]
