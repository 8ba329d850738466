"""Errors of the BM25 plugin; both are input errors, so ``reval`` exits with code 2.

``CorpusError`` is reval's (``retrieval_eval.corpus`` reads the corpus), re-exported here.
"""

from __future__ import annotations

from retrieval_eval.errors import CorpusError, InputError

__all__ = ["Bm25IndexError", "CorpusError"]


class Bm25IndexError(InputError):
    """An index directory is missing, corrupt, built by an incompatible version, or does
    not match the requested parameters. Raised when opening or updating an index."""
