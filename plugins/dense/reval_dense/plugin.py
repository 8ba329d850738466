"""The ``dense`` entry point of ``retrieval_eval.retrievers``: ``dense:DIR`` opens DIR.

Like the BM25 plugin's, the object carries ``build_index``, so that reval's quickstart
indexes its example corpus through the entry point without importing this package.
"""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.plugin_api import InputError
from reval_dense.index import build_index
from reval_dense.retriever import DenseRetriever, open_index


class DenseFactory:
    """Called by reval with the part after ``dense:`` (the index directory)."""

    build_index = staticmethod(build_index)

    def __call__(self, argument: str | None) -> DenseRetriever:
        if not argument:
            raise InputError("the dense retriever needs an index directory: dense:PATH/TO/INDEX")
        return open_index(Path(argument).expanduser())


create = DenseFactory()
