"""The shipped example corpus (45 documents: small, real text) and indexes built from it,
plus the fixtures shared with the core's tests (``support.fixtures``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.fixtures import (
    isolated_home,
    isolated_session_home,
    postgres_url,
    repo_root,
    scifact_dir,
)

from retrieval_eval.example_data import corpus_path, questions_path

__all__ = ["isolated_home", "isolated_session_home", "postgres_url", "repo_root", "scifact_dir"]


@pytest.fixture(scope="session")
def corpus() -> Path:
    return corpus_path()


@pytest.fixture(scope="session")
def questions() -> Path:
    return questions_path()


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> Path:
    """Default settings (WordLlama, 256 dimensions, exact), 150-word chunks."""
    from reval_dense.index import build_index

    out = tmp_path_factory.mktemp("dense") / "index"
    build_index(corpus, out, chunk_words=150, chunk_overlap=30)
    return out
