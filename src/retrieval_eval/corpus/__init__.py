"""Corpus reading, chunking and the corpus revision, shared by the reference plugins.

Public to plugins: a BM25, dense or custom index built from these reads the same
documents, cuts the same chunks and reports the same corpus revision. Imported on first
use, so that opening an index to search it does not load the corpus reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retrieval_eval.lazy_names import lazy_getattr

if TYPE_CHECKING:
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

_LAZY = {
    "CHUNK_SEPARATOR": "retrieval_eval.corpus.chunking",
    "Chunking": "retrieval_eval.corpus.chunking",
    "CorpusDocument": "retrieval_eval.corpus.reader",
    "CorpusError": "retrieval_eval.errors",
    "CorpusScan": "retrieval_eval.corpus.reader",
    "content_hash": "retrieval_eval.corpus.revision",
    "corpus_fingerprint": "retrieval_eval.corpus.revision",
    "count_documents": "retrieval_eval.corpus.reader",
    "duplicate_error": "retrieval_eval.corpus.reader",
    "empty_error": "retrieval_eval.corpus.reader",
    "iter_documents": "retrieval_eval.corpus.reader",
    "scan_corpus": "retrieval_eval.corpus.reader",
}

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


__getattr__ = lazy_getattr(globals(), _LAZY)
