"""A rich progress bar for ``reval eval`` on a terminal (the coordinator's Progress)."""

from __future__ import annotations

import os
import sys
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def wants_progress(fmt: str) -> bool:
    """Only for people: a terminal on stderr, a human format, and not in CI."""
    if fmt in ("json", "junit", "html") or os.environ.get("CI"):
        return False
    return sys.stderr.isatty()


class RichProgress:
    """One bar per set × retriever; implements the coordinator's ``Progress`` protocol."""

    def __init__(self) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._progress.stop()

    def start(self, label: str, total: int) -> TaskID:
        return self._progress.add_task(label, total=total)

    def advance(self, task: object, n: int = 1) -> None:
        self._progress.advance(task, n)  # type: ignore[arg-type]
