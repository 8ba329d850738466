"""The ``langchain`` kind's retriever: the factory's object, asked one question at a time.

- The factory runs when the retriever opens: a module that cannot be imported, a missing
  function, a factory that raises, or an object without ``ainvoke``/``invoke`` is a
  configuration error naming the key.
- ``ainvoke`` is awaited (``invoke`` runs in a worker thread) inside the call's deadline;
  ``limit_kwarg`` passes reval's limit (``k`` for a vector store's retriever). A retriever
  with its own fixed ``k`` may return more: the first ``limit`` are kept, in order.
- An exception from the retriever is that question's ``internal`` error; a document
  without the ``id_key`` metadata (or whose id is not a string or integer), or a
  ``score_key`` value that is not a number, is a ``contract`` error.
"""

from __future__ import annotations

import asyncio
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
    from retrieval_eval.retrievers.kinds.langchain.config import LangChainConfig


def build(config: LangChainConfig) -> Any:
    """The factory's retriever object; ``ConfigError`` naming ``factory`` if it fails."""
    retriever = config.factory.call(config.where)
    if not callable(getattr(retriever, "ainvoke", None)) and not callable(
        getattr(retriever, "invoke", None)
    ):
        raise ConfigError(
            f"{config.where}: key 'factory': {config.factory.path}() returned "
            f"{type(retriever).__name__}, which has neither ainvoke nor invoke"
        )
    return retriever


class LangChainRetriever:
    """``AsyncRetriever`` over a ``langchain`` entry of reval.toml."""

    def __init__(self, config: LangChainConfig, timeout_s: float | None = None) -> None:
        self.config = config
        self.target = f"{config.common.name} ({config.detail()})"
        self.timeout_s = timeout_s if timeout_s is not None else config.common.timeout_s
        self.retriever = build(config)

    @property
    def configured_timeout_s(self) -> float | None:
        return self.timeout_s

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        kwargs = {self.config.limit_kwarg: limit} if self.config.limit_kwarg else {}
        try:
            async with asyncio.timeout(deadline):
                if callable(getattr(self.retriever, "ainvoke", None)):
                    documents = await self.retriever.ainvoke(question, **kwargs)
                else:
                    documents = await asyncio.to_thread(self.retriever.invoke, question, **kwargs)
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        except Exception as e:
            message = " ".join(str(e).split())
            raise RetrieverInternal(self.target, f"{type(e).__name__}: {message}") from e
        return self._ranking(documents, limit)

    def _ranking(self, documents: Any, limit: int) -> Ranking:
        if not isinstance(documents, list | tuple):
            raise RetrieverContractError(
                self.target, f"returned {type(documents).__name__}, not a list of Documents"
            )
        key, score_key = self.config.id_key, self.config.score_key
        ids: list[str] = []
        scores: list[float] = []
        for rank, document in enumerate(documents[:limit], start=1):
            metadata = getattr(document, "metadata", None)
            if not isinstance(metadata, dict) or key not in metadata:
                keys = sorted(metadata) if isinstance(metadata, dict) else None
                raise RetrieverContractError(
                    self.target, f"document {rank} has no metadata key {key!r}; keys: {keys}"
                )
            value = metadata[key]
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise RetrieverContractError(
                    self.target, f"document {rank}: metadata {key!r} is {value!r}, not an id"
                )
            ids.append(str(value))
            if score_key:
                score = metadata.get(score_key)
                if isinstance(score, bool) or not isinstance(score, int | float):
                    raise RetrieverContractError(
                        self.target,
                        f"document {rank}: metadata {score_key!r} is {score!r}, not a number",
                    )
                scores.append(float(score))
        ranking = Ranking(tuple(ids), tuple(scores))
        breach = response_breach(ranking, limit)
        if breach is not None:
            raise RetrieverContractError(self.target, breach)
        return ranking

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        return describe_kind(self.config)

    async def close(self) -> None:
        return None

    async def __aenter__(self) -> LangChainRetriever:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"LangChainRetriever({self.target!r})"
