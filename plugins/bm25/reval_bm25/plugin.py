"""The ``bm25`` entry point of ``retrieval_eval.retrievers``: ``bm25:DIR`` opens DIR.

The entry point's object also carries ``build_index``, so that reval's quickstart can
index its example corpus through the entry point, without importing this package by name.
"""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.errors import InputError
from reval_bm25.index import build_index
from reval_bm25.retriever import Bm25Retriever, open_index


class Bm25Factory:
    """Called by reval with the part after ``bm25:`` (the index directory)."""

    build_index = staticmethod(build_index)

    def __call__(self, argument: str | None) -> Bm25Retriever:
        if not argument:
            raise InputError("the bm25 retriever needs an index directory: bm25:PATH/TO/INDEX")
        return open_index(Path(argument).expanduser())


create = Bm25Factory()
