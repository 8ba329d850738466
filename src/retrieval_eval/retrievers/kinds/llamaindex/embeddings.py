"""A LlamaIndex ``BaseEmbedding`` over reval's ``Embedder`` interface, so a LlamaIndex
index can be built with the same embedder (e.g. the dense plugin's offline ``wordllama``)
that reval's own indexes and kinds use::

    from retrieval_eval.retrievers.kinds.llamaindex.embeddings import EmbedderEmbedding
    index = VectorStoreIndex(nodes, embed_model=EmbedderEmbedding.load("wordllama"))

Importing this module imports ``llama_index.core`` (the ``llamaindex`` extra).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from retrieval_eval.retrievers.embedding import Embedder, load_embedder


class EmbedderEmbedding(BaseEmbedding):
    """A LlamaIndex embedding model whose vectors are ``embedder``'s (L2-normalised)."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: Any) -> None:
        super().__init__(model_name=embedder.identity.label(), **kwargs)
        self._embedder = embedder

    @classmethod
    def load(cls, name: str, options: Mapping[str, Any] | None = None) -> EmbedderEmbedding:
        """The embedder plugin ``name`` with ``options`` (see ``load_embedder``)."""
        return cls(load_embedder(name, options))

    @classmethod
    def class_name(cls) -> str:
        return "RevalEmbedderEmbedding"

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        rows: list[list[float]] = self._embedder.embed(texts).tolist()
        return rows

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        # The embedder is synchronous: keep the event loop free while it runs.
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)
