"""What the framework kinds (``langchain``, ``llamaindex``) share past the factory
(``kinds.factory``): the user's object asked one question at a time.

- The factory's object must have the framework's async method or its sync one (else a
  configuration error naming ``factory``). The async one is awaited; the sync one runs in
  a worker thread; either inside the call's deadline.
- A deadline passed is that question's ``timeout`` error; any exception from the object
  its ``internal`` error, never a miss.
- Each result's document id is a metadata value (``id_key``): a string or an integer,
  else (or when missing) a ``contract`` error naming the result's rank. The first
  ``limit`` results are kept, in order, and the ranking is checked against the contract.

A kind gives its two method names, how one question is asked (``ask``), and how the
answer becomes a ranking (``ranking``).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar, Protocol

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverInternal,
    RetrieverTimeout,
)
from retrieval_eval.retrievers.kinds.base import KindConfig, admit
from retrieval_eval.retrievers.kinds.factory import Factory
from retrieval_eval.retrievers.kinds.kind_retriever import KindRetriever
from retrieval_eval.retrievers.protocol import Ranking


class FrameworkConfig(KindConfig, Protocol):
    """A framework kind's entry: a factory and the metadata key holding the id."""

    @property
    def factory(self) -> Factory: ...

    @property
    def id_key(self) -> str: ...


class FrameworkRetriever(KindRetriever):
    """``AsyncRetriever`` over the object a framework kind's factory returns."""

    #: (async method, sync method) of the framework's retriever interface.
    METHODS: ClassVar[tuple[str, str]]

    config: FrameworkConfig

    def __init__(self, config: FrameworkConfig, timeout_s: float | None = None) -> None:
        super().__init__(config, timeout_s)
        self.retriever = self.build()

    def build(self) -> Any:
        """The factory's object; ``ConfigError`` naming ``factory`` if it fails or has
        neither method."""
        config = self.config
        retriever = config.factory.call(config.where)
        if not any(callable(getattr(retriever, name, None)) for name in self.METHODS):
            raise ConfigError(
                f"{config.where}: key 'factory': {config.factory.path}() returned "
                f"{type(retriever).__name__}, which has neither {' nor '.join(self.METHODS)}"
            )
        return retriever

    async def call(self, retriever: Any, question: str, **kwargs: Any) -> Any:
        """``retriever``'s async method awaited, else its sync one in a worker thread."""
        asynchronous, synchronous = self.METHODS
        if callable(getattr(retriever, asynchronous, None)):
            return await getattr(retriever, asynchronous)(question, **kwargs)
        return await asyncio.to_thread(getattr(retriever, synchronous), question, **kwargs)

    async def ask(self, question: str, limit: int) -> Any:
        """The framework's answer to one question (inside the deadline)."""
        return await self.call(self.retriever, question)

    def ranking(self, answer: Any, limit: int) -> Ranking:
        """The answer's first ``limit`` results as a ranking (``contract`` errors)."""
        raise NotImplementedError

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        try:
            async with asyncio.timeout(deadline):
                answer = await self.ask(question, limit)
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        except Exception as e:
            message = " ".join(str(e).split())
            raise RetrieverInternal(self.target, f"{type(e).__name__}: {message}") from e
        return self.ranking(answer, limit)

    def results(self, answer: Any, what: str, limit: int) -> list[Any]:
        """The answer's first ``limit`` results; ``contract`` error unless it is a list of
        ``what``."""
        if not isinstance(answer, list | tuple):
            raise RetrieverContractError(
                self.target, f"returned {type(answer).__name__}, not a list of {what}"
            )
        return list(answer[:limit])

    def document_id(self, metadata: object, what: str, rank: int) -> str:
        """The id under ``id_key`` in a result's metadata; ``contract`` error naming the
        result (``what`` and ``rank``) when missing or not a string or integer."""
        key = self.config.id_key
        if not isinstance(metadata, dict) or key not in metadata:
            keys = sorted(metadata) if isinstance(metadata, dict) else None
            raise RetrieverContractError(
                self.target, f"{what} {rank} has no metadata key {key!r}; keys: {keys}"
            )
        value = metadata[key]
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise RetrieverContractError(
                self.target, f"{what} {rank}: metadata {key!r} is {value!r}, not an id"
            )
        return str(value)
