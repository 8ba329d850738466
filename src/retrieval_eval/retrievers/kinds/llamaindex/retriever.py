"""The ``llamaindex`` kind's retriever: the factory's object, asked one question at a time.

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

import asyncio
import copy
import math
from typing import TYPE_CHECKING, Any

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverInternal,
    RetrieverTimeout,
)
from retrieval_eval.records import RetrieverDescription
from retrieval_eval.retrievers.contract.limits import response_breach
from retrieval_eval.retrievers.kinds.base import admit, describe_kind
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:
    from retrieval_eval.retrievers.kinds.llamaindex.config import LlamaIndexConfig


def build(config: LlamaIndexConfig) -> Any:
    """The factory's retriever object; ``ConfigError`` naming the key if it is unusable."""
    retriever = config.factory.call(config.where)
    if not callable(getattr(retriever, "aretrieve", None)) and not callable(
        getattr(retriever, "retrieve", None)
    ):
        raise ConfigError(
            f"{config.where}: key 'factory': {config.factory.path}() returned "
            f"{type(retriever).__name__}, which has neither aretrieve nor retrieve"
        )
    attribute = config.limit_attribute
    if attribute and not hasattr(retriever, attribute):
        raise ConfigError(
            f"{config.where}: key 'limit_attribute': {type(retriever).__name__} has no "
            f"attribute {attribute!r}"
        )
    return retriever


class LlamaIndexRetriever:
    """``AsyncRetriever`` over a ``llamaindex`` entry of reval.toml."""

    def __init__(self, config: LlamaIndexConfig, timeout_s: float | None = None) -> None:
        self.config = config
        self.target = f"{config.common.name} ({config.detail()})"
        self.timeout_s = timeout_s if timeout_s is not None else config.common.timeout_s
        self.retriever = build(config)
        #: limit -> the retriever copy whose ``limit_attribute`` is that limit.
        self._by_limit: dict[int, Any] = {}

    @property
    def configured_timeout_s(self) -> float | None:
        return self.timeout_s

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

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        try:
            async with asyncio.timeout(deadline):
                retriever = self._for_limit(limit)
                if callable(getattr(retriever, "aretrieve", None)):
                    nodes = await retriever.aretrieve(question)
                else:
                    nodes = await asyncio.to_thread(retriever.retrieve, question)
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        except Exception as e:
            message = " ".join(str(e).split())
            raise RetrieverInternal(self.target, f"{type(e).__name__}: {message}") from e
        return self._ranking(nodes, limit)

    def _ranking(self, nodes: Any, limit: int) -> Ranking:
        if not isinstance(nodes, list | tuple):
            raise RetrieverContractError(
                self.target, f"returned {type(nodes).__name__}, not a list of nodes"
            )
        key = self.config.id_key
        ids: list[str] = []
        scores: list[float | None] = []
        for rank, item in enumerate(nodes[:limit], start=1):
            node = getattr(item, "node", item)
            metadata = getattr(node, "metadata", None)
            if not isinstance(metadata, dict) or key not in metadata:
                keys = sorted(metadata) if isinstance(metadata, dict) else None
                raise RetrieverContractError(
                    self.target, f"node {rank} has no metadata key {key!r}; keys: {keys}"
                )
            value = metadata[key]
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise RetrieverContractError(
                    self.target, f"node {rank}: metadata {key!r} is {value!r}, not an id"
                )
            ids.append(str(value))
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
        ranking = Ranking(tuple(ids), tuple(known))
        breach = response_breach(ranking, limit)
        if breach is not None:
            raise RetrieverContractError(self.target, breach)
        return ranking

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        return describe_kind(self.config)

    async def close(self) -> None:
        self._by_limit.clear()

    async def __aenter__(self) -> LlamaIndexRetriever:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"LlamaIndexRetriever({self.target!r})"
