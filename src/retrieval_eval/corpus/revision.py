"""The corpus revision: one definition for every reference plugin.

A document's content hash covers what is indexed (title and text); the corpus revision is
an order-independent digest of every ``(id, content hash)`` pair. BM25 and dense indexes
of one corpus therefore report the same revision in Describe, however (and in whatever
order) they were built, so their runs compare as runs on one corpus.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping


def content_hash(title: str, text: str) -> str:
    """Stable hash of a document's indexed content (an update replaces it when it changes)."""
    return hashlib.sha256(f"{title}\0{text}".encode()).hexdigest()[:32]


def corpus_fingerprint(hashes: Mapping[str, str]) -> str:
    """Order-independent revision of a corpus from its id -> content hash map."""
    digest = hashlib.sha256()
    for doc_id in sorted(hashes):
        digest.update(f"{doc_id}\t{hashes[doc_id]}\n".encode())
    return digest.hexdigest()[:16]
