"""Helpers for the question-set tests: inline set files and a CLI runner with exit codes."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from retrieval_eval.cli.main import main

PROVIDERS_DIR = Path(__file__).resolve().parent / "fixtures" / "providers"


def write(path: Path, text: str) -> Path:
    """Write ``text`` (gzipped when the name ends in .gz) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def reval(*args: str) -> int:
    """Run ``reval ARGS`` as the console script does; return its exit code."""
    try:
        main(list(args))
    except SystemExit as e:
        return int(e.code or 0)
    return 0


@pytest.fixture
def test_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Install reval-test-set-providers (a real dist-info on sys.path) next to the example."""
    monkeypatch.syspath_prepend(str(PROVIDERS_DIR))
