"""Sets with planted problems over the example corpus, written inline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.lint import EXAMPLE_CORPUS


@pytest.fixture
def planted_corpus(tmp_path: Path) -> Path:
    """The example corpus plus an empty page and a lightly edited copy of 'hooks'."""
    docs = [json.loads(line) for line in EXAMPLE_CORPUS.read_text().splitlines() if line]
    hooks = next(d for d in docs if d["_id"] == "hooks")
    words = hooks["text"].split()
    words[5] = "Also"
    docs.append({"_id": "hooks-copy", "title": hooks["title"], "text": " ".join(words)})
    docs.append({"_id": "blank-page", "title": "Under construction", "text": "  "})
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return path
