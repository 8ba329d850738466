"""SIGTERM is Ctrl-C: stop measuring, keep what was measured, exit 143 instead of 130.

Docker, Kubernetes and CI cancellation send SIGTERM. While runs are being measured it is
handed to whatever handles SIGINT at that moment (asyncio's runner cancels the
evaluation, which then raises ``EvaluationInterrupted`` with the measured runs); the
signal that arrived decides the exit code, and a repeated SIGTERM is only noted. While
SIGINT is ignored (a background job started by a POSIX shell), asyncio installs no Ctrl-C
handler, so SIGTERM cancels the loop's main task itself, exactly as that handler would. While
the measured runs are saved and reported (``finishing``), SIGINT and SIGTERM are only
noted: a store write is one short transaction, and a second signal must not abandon it
half way. After a stop SIGTERM is ignored until the process exits, so a repeated SIGTERM (CI
cancellation often sends several) cannot turn exit 143 into a kill.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from types import FrameType

_received: list[int] = []


def received() -> int | None:
    """The first SIGINT or SIGTERM noted since ``measuring`` began, if any."""
    return _received[0] if _received else None


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if len(_received) > 1:
        return  # already stopping: a repeated SIGTERM must not abandon the cancellation
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)  # asyncio's runner, or default_int_handler
    elif not _cancel_the_running_evaluation():
        raise KeyboardInterrupt


def _cancel_the_running_evaluation() -> bool:
    """Do what asyncio's runner does on Ctrl-C when SIGINT is ignored (a background job of
    a POSIX shell starts so, and asyncio then installs no handler): cancel the loop's
    main task, the oldest one, so that the evaluation stops and keeps what it measured.
    False when no loop is running."""
    import asyncio

    loop = asyncio.events._get_running_loop()
    if loop is None:
        return False
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    if not tasks:
        return False
    main = min(tasks, key=_creation_order)
    main.cancel()
    loop.call_soon_threadsafe(lambda: None)  # wake the loop, as asyncio's runner does
    return True


def _creation_order(task: object) -> int:
    """Tasks are named Task-N in creation order unless named otherwise (then last)."""
    name = getattr(task, "get_name", lambda: "")()
    prefix, _, number = name.rpartition("-")
    return int(number) if prefix == "Task" and number.isdigit() else sys.maxsize


def announce_stop(*, saving: bool) -> None:
    """Say, on standard error, that measuring stopped on a signal and the measured part
    is being kept: a large run's save and report take a while, and a second Ctrl-C must
    not look needed."""
    kept = "saving and reporting" if saving else "reporting"
    print(f"reval: stopped; {kept} what was measured", file=sys.stderr, flush=True)


def _note(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    print("reval: saving and reporting what was measured; please wait", file=sys.stderr)


@contextlib.contextmanager
def measuring() -> Iterator[None]:
    """SIGTERM behaves like Ctrl-C inside this block (main thread only)."""
    _received.clear()
    if not _main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        # Once stopped, the process only exits (143): a later SIGTERM is ignored, even
        # during interpreter shutdown, where Python handlers are gone and it would kill.
        signal.signal(signal.SIGTERM, signal.SIG_IGN if _received else previous)


@contextlib.contextmanager
def finishing() -> Iterator[None]:
    """SIGINT and SIGTERM are noted, not acted on, inside this block."""
    if not _main_thread():
        yield
        return
    previous = {s: signal.signal(s, _note) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()
