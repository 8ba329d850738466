"""Errors of the BM25 plugin; both are input errors, so ``reval`` exits with code 2."""

from __future__ import annotations

from retrieval_eval.errors import InputError


class CorpusError(InputError):
    """The corpus cannot be indexed: missing, empty, malformed JSONL (with file:line),
    a duplicate document id. Raised by the corpus reader before anything is written."""


class Bm25IndexError(InputError):
    """An index directory is missing, corrupt, built by an incompatible version, or does
    not match the requested parameters. Raised when opening or updating an index."""
