"""Reading a corpus file: its document ids (to find expected ids that no longer exist)
or its documents (for label checks).

A corpus is JSONL (BEIR style), one document per line with its id in ``_id`` (or ``id``),
an optional ``title`` and a ``text``; gzip by suffix. Stale labels after a re-chunking or
a re-import are the commonest silent failure of a golden set: this is how they are caught.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from retrieval_eval.errors import InputError
from retrieval_eval.questions.formats import read_text
from retrieval_eval.questions.jsondecode import UnreadableJSON, read_line


@dataclass(frozen=True, slots=True)
class CorpusDocument:
    id: str
    title: str
    text: str


def read_corpus_ids(path: Path) -> frozenset[str]:
    """Every document id in the corpus; ``InputError`` naming file and line when malformed."""
    return frozenset(doc.id for doc in read_corpus(path))


def read_corpus(path: Path) -> Iterator[CorpusDocument]:
    """The corpus's documents in file order; ``InputError`` naming file and line when
    malformed (raised before the first document is yielded: nothing is half-read)."""
    try:
        text = read_text(path, limit=None)  # the user's own corpus, often large
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read corpus: {e}") from e
    docs = [doc for number, line in enumerate(text.split("\n"), 1)
            if (doc := _document(path, number, line)) is not None]  # fmt: skip
    if not docs:
        raise InputError(f"{path}: the corpus has no documents")
    return iter(docs)


def _document(path: Path, number: int, line: str) -> CorpusDocument | None:
    if not line or line.isspace():
        return None
    try:
        doc = read_line(line)
    except UnreadableJSON as e:
        raise InputError(f"{path}:{number}: invalid JSON in corpus: {e.reason}") from e
    doc_id = doc.get("_id", doc.get("id")) if isinstance(doc, dict) else None
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)  # some BEIR exports write numeric ids
    if not isinstance(doc_id, str) or not doc_id:
        raise InputError(f"{path}:{number}: corpus document without a string '_id'")
    title, body = doc.get("title") or "", doc.get("text") or ""
    if not isinstance(title, str) or not isinstance(body, str):
        raise InputError(f"{path}:{number}: document {doc_id!r}: 'title' and 'text' must be text")
    return CorpusDocument(doc_id, title, body)
