"""Fixtures shared by every core test (defined in ``support.fixtures``)."""

from __future__ import annotations

import compileall
import sys

import pytest
from support.env import REPO_ROOT
from support.fixtures import (
    isolated_home,
    isolated_session_home,
    postgres_url,
    repo_root,
    scifact_dir,
)

__all__ = ["isolated_home", "isolated_session_home", "postgres_url", "repo_root", "scifact_dir"]


#: The sources that the suite's subprocesses (``reval``, servers, plugin suites) import.
SOURCES = ("src", "plugins/bm25/reval_bm25", "plugins/dense/reval_dense")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the package's bytecode once, before any test starts a process: where the
    environment says PYTHONDONTWRITEBYTECODE (as CI's may), every ``reval`` the tests
    start would otherwise compile the package's modules again, in each of hundreds of
    processes. Python itself writes the same files wherever bytecode may be written."""
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller did it
        return
    if sys.flags.dont_write_bytecode:
        for source in SOURCES:
            compileall.compile_dir(REPO_ROOT / source, quiet=1, workers=1)
