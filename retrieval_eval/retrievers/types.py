"""Plain records and protocols for retrievers; protobuf types never leave the edge."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from retrieval_eval.records import RetrieverDescription


@dataclass(frozen=True, slots=True)
class RetrievedItem:
    """One ranked result. ``document_id`` may be a chunk id when the retriever declares
    a chunk separator."""

    document_id: str
    score: float | None = None
    chunk_id: str | None = None


@runtime_checkable
class Retriever(Protocol):
    """What a user implements to be served by the SDK: ``retrieve`` may be sync or async.

    ``describe`` is optional for served objects (the SDK falls back to the class name).
    """

    def retrieve(
        self, question: str, limit: int
    ) -> list[RetrievedItem] | Awaitable[list[RetrievedItem]]: ...


class AsyncRetriever(Protocol):
    """What the coordinator talks to: a remote gRPC client or an in-process plugin
    wrapped to behave the same way. Failures raise ``RetrieverError`` subclasses."""

    #: Human-readable target (address or plugin name), used in messages and the store.
    target: str

    async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]: ...

    async def describe(self) -> RetrieverDescription: ...

    async def close(self) -> None: ...


class RetrieverFactory(Protocol):
    """The object behind an entry point in ``retrieval_eval.retrievers``.

    Called with the text after ``NAME:`` in a spec (``bm25:/path/to/index`` -> the index
    path), or ``None`` for a bare ``NAME``. Returns an object with ``retrieve(question,
    limit)`` (sync or async), and optionally ``describe()`` and ``close()``.
    """

    def __call__(self, argument: str | None) -> Any: ...
