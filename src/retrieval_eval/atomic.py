"""Replacing a file atomically without changing who may read it.

A file is written to a temporary file beside it, flushed to disk, then renamed over the
old one: a reader (or a crash, or a full disk) sees the old file or the new one, never
half of one. ``mkstemp`` creates that temporary file ``-rw-------`` in the writer's group;
renamed as is, it would make a set file two people judge private to the last saver. So
the new file takes the old file's permission bits and group (the owner cannot be given
away without privileges), and a file that did not exist gets the usual ``0666 & ~umask``.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TextIO

#: errno values that mean the machine, not the request, failed: a full disk or quota,
#: an I/O error, a read-only file system.
INFRASTRUCTURE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS})


def is_infrastructure(error: OSError) -> bool:
    """A full disk (or quota, I/O error, read-only file system), not bad input."""
    return error.errno in INFRASTRUCTURE_ERRNOS


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` (see the module docstring)."""
    with atomic_file(path) as f:
        f.write(data)


@contextmanager
def atomic_file(path: Path) -> Iterator[IO[bytes]]:
    """A binary file that replaces ``path`` when the block ends without an error."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old: os.stat_result | None = path.stat()
    except FileNotFoundError:
        old = None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        _take_over(fd, old)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """``atomic_file`` as UTF-8 text."""
    with atomic_file(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        yield text
        text.flush()
        text.detach()


def _take_over(fd: int, old: os.stat_result | None) -> None:
    """Give the temporary file the old file's mode and group, or the umask's mode."""
    if old is None:
        os.fchmod(fd, 0o666 & ~_umask())
        return
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    if os.fstat(fd).st_gid != old.st_gid:
        try:
            os.fchown(fd, -1, old.st_gid)
        except PermissionError:  # not a member of that group: keep ours
            pass
        else:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))  # chown may clear setgid bits


def _umask() -> int:
    """The process's umask, read without changing it (threads may be creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no /proc: the classic set-and-restore
    os.umask(mask)
    return mask
