"""Helpers for the question-set tests: inline set files and a CLI runner with exit codes."""

from __future__ import annotations

import pytest
from support.questions import PROVIDERS_DIR


@pytest.fixture
def test_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Install reval-test-set-providers (a real dist-info on sys.path) next to the example."""
    monkeypatch.syspath_prepend(str(PROVIDERS_DIR))
