"""Errors of the dense plugin. An index problem is an input error (exit 2); an embedder
that fails is reval's ``EmbeddingError`` (infrastructure, exit 3; a question error when
it happens while answering a question)."""

from __future__ import annotations

from retrieval_eval.plugin_api import InputError


class DenseIndexError(InputError):
    """An index directory is missing, corrupt, from an incompatible version, or the
    requested parameters are invalid. Raised when building or opening an index."""
