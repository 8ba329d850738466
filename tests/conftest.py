"""Fixtures shared by every core test (defined in ``support.fixtures``)."""

from __future__ import annotations

import compileall
import os
import sys

import pytest
from hypothesis import settings
from support.env import REPO_ROOT
from support.fixtures import (
    isolated_home,
    isolated_session_home,
    postgres_url,
    repo_root,
    scifact_dir,
)

__all__ = ["isolated_home", "isolated_session_home", "postgres_url", "repo_root", "scifact_dir"]

#: Property tests have no per-example deadline: on a machine whose two cores are shared, an
#: example's wall time says nothing about the code, and hypothesis's default (200 ms)
#: failed a property test at random under load. Speed is measured by the benchmarks.
settings.register_profile("reval", deadline=None)
settings.load_profile("reval")


def pytest_configure(config: pytest.Config) -> None:
    """What CI adds to this run through PYTEST_ADDOPTS (coverage, in .ci/run) is this run's
    alone: the pytest processes the tests start (the pytest plugin's, the docs' blocks) run
    as a user's would. A worker and a serial run drop it (they read it already); the
    controller of a parallel run keeps it for the workers it starts, which read it too."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", 0):
        os.environ.pop("PYTEST_ADDOPTS", None)


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


#: The modules that take longest (measured with ``--durations``), longest first. xdist
#: hands whole modules to workers (``--dist loadfile``); its own order puts modules with
#: many tests first, which left these few-test, subprocess-bound ones to start last and
#: run alone at the end. Started first, the short modules fill in around them. A module
#: missing here only runs later; the list decides order, never what runs.
LONGEST_FIRST = (
    "tests/docs/test_doc_blocks.py",
    "tests/pytest_plugin/test_plugin_verdicts.py",
    "tests/pytest_plugin/test_plugin_config.py",
    "tests/pytest_plugin/test_plugin_rates.py",
    "tests/retrievers/kinds/test_command.py",
    "tests/api/test_typing.py",
    "tests/retrievers/kinds/test_failures.py",
    "tests/retrievers/kinds/test_qdrant.py",
    "tests/test_quickstart.py",
    "tests/cli/test_incomplete_runs.py",
    "tests/cli/test_startup.py",
    "tests/browser/test_judging.py",
    "tests/retrievers/kinds/llamaindex/test_llamaindex.py",
    "tests/cli/test_eval_command.py",
    "tests/cli/test_gate.py",
    "tests/pytest_plugin/test_plugin_baselines.py",
    "tests/questions/test_bombs.py",
    "tests/test_typed_install.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest modules first; within a module, the order written (a stable sort)."""
    rank = {path: n for n, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
