"""Document ids of a corpus file, to find expected ids that no longer exist.

A corpus is JSONL (BEIR style), one document per line with its id in ``_id`` (or ``id``);
gzip by suffix. Only the ids are kept. Stale labels after a re-chunking or a re-import
are the commonest silent failure of a golden set: this is how they are caught.
"""

from __future__ import annotations

import json
from pathlib import Path

from retrieval_eval.errors import InputError
from retrieval_eval.questions.formats import read_text


def read_corpus_ids(path: Path) -> frozenset[str]:
    """Every document id in the corpus; ``InputError`` naming file and line when malformed."""
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read corpus: {e}") from e
    ids: set[str] = set()
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.isspace():
            continue
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{path}:{number}: invalid JSON in corpus: {e.msg}") from e
        doc_id = doc.get("_id", doc.get("id")) if isinstance(doc, dict) else None
        if isinstance(doc_id, int) and not isinstance(doc_id, bool):
            doc_id = str(doc_id)  # some BEIR exports write numeric ids
        if not isinstance(doc_id, str) or not doc_id:
            raise InputError(f"{path}:{number}: corpus document without a string '_id'")
        ids.add(doc_id)
    if not ids:
        raise InputError(f"{path}: the corpus has no documents")
    return frozenset(ids)
