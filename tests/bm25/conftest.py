"""Small corpora written inline, and an index built from one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DOCS = [
    {"_id": "scurvy", "title": "Scurvy", "text": "Scurvy is caused by a lack of vitamin C."},
    {"_id": "rickets", "title": "Rickets", "text": "Rickets comes from too little vitamin D."},
    {"_id": "beriberi", "title": "Beriberi", "text": "Beriberi follows a thiamine deficiency."},
    {"_id": "pellagra", "title": "Pellagra", "text": "Pellagra results from lacking niacin."},
    {"_id": "goitre", "title": "Goitre", "text": "An iodine shortage enlarges the thyroid."},
]


def write_jsonl(path: Path, docs: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), "utf-8")
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "corpus.jsonl", DOCS)


@pytest.fixture
def index_dir(tmp_path: Path, corpus: Path) -> Path:
    from reval_bm25 import build_index

    out = tmp_path / "index"
    build_index(corpus, out)
    return out
