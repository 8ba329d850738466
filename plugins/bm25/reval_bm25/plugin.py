"""The ``bm25`` entry point of ``retrieval_eval.retrievers``: ``bm25:DIR`` opens DIR."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.errors import InputError
from reval_bm25.retriever import Bm25Retriever, open_index


def create(argument: str | None) -> Bm25Retriever:
    """Factory called by reval with the part after ``bm25:`` (the index directory)."""
    if not argument:
        raise InputError("the bm25 retriever needs an index directory: bm25:PATH/TO/INDEX")
    return open_index(Path(argument).expanduser())
