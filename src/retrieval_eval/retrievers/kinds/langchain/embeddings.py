"""LangChain ``Embeddings`` over reval's ``Embedder`` interface, so a LangChain vector
store can be built with the same embedder (e.g. the dense plugin's offline ``wordllama``)
that reval's own indexes and kinds use::

    from retrieval_eval.retrievers.kinds.langchain.embeddings import EmbedderEmbeddings
    store = InMemoryVectorStore(EmbedderEmbeddings.load("wordllama", {"dimensions": 64}))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.embeddings import Embeddings

from retrieval_eval.retrievers.embedding import Embedder, load_embedder


class EmbedderEmbeddings(Embeddings):
    """A LangChain ``Embeddings`` whose vectors are ``embedder``'s (L2-normalised)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    @classmethod
    def load(cls, name: str, options: Mapping[str, Any] | None = None) -> EmbedderEmbeddings:
        """The embedder plugin ``name`` with ``options`` (see ``load_embedder``)."""
        return cls(load_embedder(name, options))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        rows: list[list[float]] = self.embedder.embed(texts).tolist()
        return rows

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
