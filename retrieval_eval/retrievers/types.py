"""Plain records and protocols for retrievers; protobuf types never leave the edge."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from retrieval_eval.records import RetrieverDescription


@dataclass(frozen=True, slots=True)
class RetrievedItem:
    """One ranked result. ``document_id`` may be a chunk id when the retriever declares
    a chunk separator."""

    document_id: str
    score: float | None = None
    chunk_id: str | None = None


#: One result as a user's ``retrieve`` may return it: a record, a plain document id, or
#: an ``(id, score)`` pair.
RetrievedLike = RetrievedItem | str | tuple[str, float]


@runtime_checkable
class Retriever(Protocol):
    """What a user writes: served by the SDK (``serve``) or evaluated in-process
    (``evaluate``). ``retrieve`` may be sync or async and returns, in rank order, at most
    ``limit`` results, each a ``RetrievedItem``, a document id or an ``(id, score)`` pair.

    ``describe()`` is optional (returning a ``RetrieverDescription`` or an identifier;
    the class name is the fallback), and so is ``close()``.
    """

    def retrieve(
        self, question: str, limit: int
    ) -> Sequence[RetrievedLike] | Awaitable[Sequence[RetrievedLike]]: ...


@runtime_checkable
class AsyncRetriever(Protocol):
    """What the coordinator talks to: our gRPC client, or ``InProcessRetriever`` around a
    user's object. Failures raise ``RetrieverError`` subclasses; every call takes its
    deadline (``timeout_s``; None = the configured one) and enforces it itself."""

    #: Human-readable target (address or plugin name), used in messages and the store.
    target: str

    @property
    def configured_timeout_s(self) -> float | None:
        """The deadline this retriever was opened with (e.g. reval.toml); None = default."""
        ...

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> list[RetrievedItem]: ...

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription: ...

    async def close(self) -> None: ...


class RetrieverFactory(Protocol):
    """The object behind an entry point in ``retrieval_eval.retrievers``.

    Called with the text after ``NAME:`` in a spec (``bm25:/path/to/index`` -> the index
    path), or ``None`` for a bare ``NAME``. Returns a ``Retriever``: an object with
    ``retrieve(question, limit)`` (sync or async), and optionally ``describe()`` and
    ``close()`` (checked when loaded: a plugin is not type-checked with reval).
    """

    def __call__(self, argument: str | None) -> Retriever: ...
