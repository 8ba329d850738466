"""Write beside the target, then swap in by rename: nothing half-written, ever.

A staging directory is a hidden sibling of the target (same filesystem, so renames are
atomic); on any error, Ctrl-C included, it is removed and the target is left as it was.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reval_bm25.errors import Bm25IndexError
from reval_bm25.metadata import METADATA_FILE


def check_target(out: Path) -> None:
    """Refuse to replace anything but an empty directory or an existing bm25 index."""
    if out.exists() and not out.is_dir():
        raise Bm25IndexError(f"--out {out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / METADATA_FILE).is_file():
        raise Bm25IndexError(f"--out {out}: directory is not empty and not a bm25 index")


@contextmanager
def staging(target: Path, purpose: str) -> Iterator[Path]:
    """A temp dir beside ``target`` (same filesystem) that replaces it on success."""
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = _fresh_dir(target, purpose)
    try:
        yield stage
        _swap_in(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _fresh_dir(target: Path, purpose: str) -> Path:
    """A new hidden sibling of ``target``, created with the user's umask."""
    path = target.parent / f".{target.name}.{purpose}-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    return path


def _swap_in(stage: Path, target: Path) -> None:
    if target.is_dir() and any(target.iterdir()):
        retired = _fresh_dir(target, "old")
        os.rename(target, retired / "index")
        os.rename(stage, target)
        shutil.rmtree(retired, ignore_errors=True)
    else:
        if target.is_dir():
            target.rmdir()
        os.rename(stage, target)


def link_or_copy(source: str, destination: str) -> None:
    """``copytree``'s copy function for staging an update: a hard link where possible."""
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)
