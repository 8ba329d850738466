"""A corpus file and an index built from it (``corpora.DOCS``), and the fixtures shared with
the core's tests (``support.fixtures``: run from the repository, as the README's test
command does)."""

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

from .corpora import DOCS, write_jsonl

__all__ = ["isolated_home", "isolated_session_home", "postgres_url", "repo_root", "scifact_dir"]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "corpus.jsonl", DOCS)


@pytest.fixture
def index_dir(tmp_path: Path, corpus: Path) -> Path:
    from reval_bm25.index import build_index

    out = tmp_path / "index"
    build_index(corpus, out)
    return out
