"""Shared fixtures. Optional parts (PostgreSQL, Node.js, SciFact) skip with a reason
locally; with REVAL_TEST_STRICT=1 (set by .ci/run) a missing part fails instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SCIFACT_DIR = REPO_ROOT.parent / "shared" / "datasets" / "scifact"
STRICT = os.environ.get("REVAL_TEST_STRICT") == "1"


def require(condition: bool, reason: str) -> None:
    """Skip (or, in CI's strict mode, fail) when an optional part is missing."""
    if condition:
        return
    if STRICT:
        pytest.fail(f"required in CI (REVAL_TEST_STRICT=1): {reason}")
    pytest.skip(reason)


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
def postgres_url() -> str:
    url = os.environ.get("REVAL_TEST_POSTGRES_URL", "")
    require(bool(url), "no PostgreSQL server: set REVAL_TEST_POSTGRES_URL (.ci/run does)")
    return url


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Never touch the user's default run store or config from a test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("REVAL_HOME", str(home))
    monkeypatch.delenv("REVAL_DATABASE_URL", raising=False)
    yield
