"""Fixtures every test directory shares; each conftest imports the ones it registers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.env import REPO_ROOT, SCIFACT_DIR, require
from support.postgres import own_database


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def scifact_dir() -> Path:
    require(
        (SCIFACT_DIR / "corpus.jsonl.gz").exists(),
        f"BEIR SciFact not found at {SCIFACT_DIR} (see shared/datasets/scifact/SOURCE.md)",
    )
    return SCIFACT_DIR


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A database of this process's own on the test server (``support.postgres``): tests
    in other pytest-xdist workers never see its tables, schemas or locks."""
    url = os.environ.get("REVAL_TEST_POSTGRES_URL", "")
    require(bool(url), "no PostgreSQL server: set REVAL_TEST_POSTGRES_URL (.ci/run does)")
    with own_database(url) as database_url:
        yield database_url


#: pytest-xdist sets these in its workers (COLUMNS=80): a report's width would depend on
#: how the suite was started.
SIZE = ("COLUMNS", "LINES")


@pytest.fixture(scope="session", autouse=True)
def isolated_session_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The same for module- and session-scoped fixtures (set up before any test's own),
    e.g. a ``reval`` server started once for a module."""
    saved = {name: os.environ.get(name) for name in ("REVAL_HOME", "REVAL_DATABASE_URL", *SIZE)}
    os.environ["REVAL_HOME"] = str(tmp_path_factory.mktemp("session-home"))
    for name in ("REVAL_DATABASE_URL", *SIZE):
        os.environ.pop(name, None)
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Never touch the user's default run store or config from a test, and see the same
    terminal size in a pytest-xdist worker as in a serial run."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("REVAL_HOME", str(home))
    for name in ("REVAL_DATABASE_URL", *SIZE):
        monkeypatch.delenv(name, raising=False)
    yield
