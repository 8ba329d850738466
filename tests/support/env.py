"""Where things are, and how a test reacts to a missing optional part.

Optional parts (PostgreSQL, Node.js, SciFact) skip with a reason locally; with
REVAL_TEST_STRICT=1 (set by .ci/run) a missing part fails instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SCIFACT_DIR = REPO_ROOT.parent / "shared" / "datasets" / "scifact"
STRICT = os.environ.get("REVAL_TEST_STRICT") == "1"


def require(condition: bool, reason: str) -> None:
    """Skip (or, in CI's strict mode, fail) when an optional part is missing."""
    if condition:
        return
    if STRICT:
        pytest.fail(f"required in CI (REVAL_TEST_STRICT=1): {reason}")
    pytest.skip(reason)


def installed(module: str) -> bool:
    """Whether ``module`` can be imported, found without importing it (a framework such
    as llama_index takes seconds to import: a skip check must not pay that)."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False
