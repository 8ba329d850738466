"""Corpus reading, chunking and the corpus revision, shared by the reference plugins.

Public to plugins: a BM25, dense or custom index built from these reads the same
documents, cuts the same chunks and reports the same corpus revision.
"""

from __future__ import annotations

from retrieval_eval.corpus.chunking import CHUNK_SEPARATOR, Chunking
from retrieval_eval.corpus.reader import (
    CorpusDocument,
    CorpusScan,
    count_documents,
    duplicate_error,
    empty_error,
    iter_documents,
    scan_corpus,
)
from retrieval_eval.corpus.revision import content_hash, corpus_fingerprint
from retrieval_eval.errors import CorpusError

__all__ = [
    "CHUNK_SEPARATOR",
    "Chunking",
    "CorpusDocument",
    "CorpusError",
    "CorpusScan",
    "content_hash",
    "corpus_fingerprint",
    "count_documents",
    "duplicate_error",
    "empty_error",
    "iter_documents",
    "scan_corpus",
]
