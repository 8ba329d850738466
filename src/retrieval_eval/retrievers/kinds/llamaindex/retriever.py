"""The ``llamaindex`` kind's retriever: the factory's object, asked one question at a time
(what the framework kinds share is in ``kinds.framework``).

- The factory runs when the retriever opens: a module that cannot be imported, a missing
  function, a factory that raises, an object without ``aretrieve``/``retrieve``, or a
  ``limit_attribute`` it does not have is a configuration error naming the key.
- ``aretrieve`` is awaited (``retrieve`` runs in a worker thread) inside the call's
  deadline. With ``limit_attribute`` (``similarity_top_k`` for an index's retriever), each
  limit asked gets its own shallow copy of the retriever with that attribute set, so that
  concurrent questions with different limits never change each other's. A retriever with
  its own fixed top k may return more: the first ``limit`` are kept, in order.
- An exception from the retriever is that question's ``internal`` error; a node without
  the ``id_key`` metadata (or whose id is not a string or integer), a score that is not a
  number, or scores on some nodes only, is a ``contract`` error.
"""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any

from retrieval_eval.errors import ConfigError, RetrieverContractError
from retrieval_eval.retrievers.kinds.framework import FrameworkRetriever
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:
    from retrieval_eval.retrievers.kinds.llamaindex.config import LlamaIndexConfig


class LlamaIndexRetriever(FrameworkRetriever):
    """``AsyncRetriever`` over a ``llamaindex`` entry of reval.toml."""

    METHODS = ("aretrieve", "retrieve")
    config: LlamaIndexConfig

    def __init__(self, config: LlamaIndexConfig, timeout_s: float | None = None) -> None:
        super().__init__(config, timeout_s)
        #: limit -> the retriever copy whose ``limit_attribute`` is that limit.
        self._by_limit: dict[int, Any] = {}

    def build(self) -> Any:
        retriever = super().build()
        attribute = self.config.limit_attribute
        if attribute and not hasattr(retriever, attribute):
            raise ConfigError(
                f"{self.config.where}: key 'limit_attribute': {type(retriever).__name__} has "
                f"no attribute {attribute!r}"
            )
        return retriever

    def _for_limit(self, limit: int) -> Any:
        attribute = self.config.limit_attribute
        if not attribute:
            return self.retriever
        retriever = self._by_limit.get(limit)
        if retriever is None:
            retriever = copy.copy(self.retriever)
            setattr(retriever, attribute, limit)
            self._by_limit[limit] = retriever
        return retriever

    async def ask(self, question: str, limit: int) -> Any:
        return await self.call(self._for_limit(limit), question)

    def ranking(self, answer: Any, limit: int) -> Ranking:
        ids: list[str] = []
        scores: list[float | None] = []
        for rank, item in enumerate(self.results(answer, "nodes", limit), start=1):
            node = getattr(item, "node", item)
            ids.append(self.document_id(getattr(node, "metadata", None), "node", rank))
            score = getattr(item, "score", None)
            if score is not None and (
                isinstance(score, bool)
                or not isinstance(score, int | float)
                or not math.isfinite(score)
            ):
                raise RetrieverContractError(
                    self.target, f"node {rank}: the score {score!r} is not a number"
                )
            scores.append(None if score is None else float(score))
        known = [s for s in scores if s is not None]
        if known and len(known) != len(scores):
            raise RetrieverContractError(
                self.target, f"{len(known)} of {len(scores)} nodes have a score"
            )
        return self.checked(Ranking(tuple(ids), tuple(known)), limit)

    async def close(self) -> None:
        self._by_limit.clear()
