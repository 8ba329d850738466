"""Errors of the BM25 plugin: an input error, so ``reval`` exits with code 2. (A corpus
that cannot be read is reval's ``CorpusError``, raised by the shared corpus reader.)"""

from __future__ import annotations

from retrieval_eval.plugin_api import InputError


class Bm25IndexError(InputError):
    """An index directory is missing, corrupt, built by an incompatible version, or does
    not match the requested parameters. Raised when opening or updating an index."""
