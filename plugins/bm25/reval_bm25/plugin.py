"""The ``bm25`` entry point of ``retrieval_eval.retrievers``: ``bm25:DIR`` opens DIR.

The entry point's object also carries ``build_index``, so that reval's quickstart can
index its example corpus through the entry point, without importing this package by name.
The indexer is imported when an index is built: searching one does not load it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrieval_eval.plugin_api import InputError
from reval_bm25.retriever import Bm25Retriever, open_index

if TYPE_CHECKING:
    from reval_bm25.index import IndexInfo


class Bm25Factory:
    """Called by reval with the part after ``bm25:`` (the index directory)."""

    @staticmethod
    def build_index(corpus: Path, out: Path, **options: Any) -> IndexInfo:
        """``reval_bm25.index.build_index``: index ``corpus`` into ``out``."""
        from reval_bm25.index import build_index

        return build_index(corpus, out, **options)

    def __call__(self, argument: str | None) -> Bm25Retriever:
        if not argument:
            raise InputError("the bm25 retriever needs an index directory: bm25:PATH/TO/INDEX")
        return open_index(Path(argument).expanduser())


create = Bm25Factory()
