"""Plain records and protocols for retrievers; protobuf types never leave the edge."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class RetrievedItem:
    """One ranked result. ``document_id`` may be a chunk id when the retriever declares
    a chunk separator."""

    document_id: str
    score: float | None = None
    chunk_id: str | None = None


@dataclass(frozen=True, slots=True)
class RetrieverDescription:
    """What is being measured (the answer to Describe)."""

    identifier: str
    version: str = ""
    chunk_separator: str = ""
    corpus_revision: str = ""
    model_revision: str = ""
    chunking: str = ""
    pipeline: str = ""
    metadata: Mapping[str, str] = field(default_factory=dict)

    def variant_label(self, target: str = "") -> str:
        """What tells runs of one identifier apart, for people: version, model, chunking
        and where it ran (an index path or address), e.g.
        ``bm25 0.1.0 · chunking words=50 · bm25:small-chunks``."""
        parts = [f"{self.identifier} {self.version}".strip()]
        parts += [f"model {self.model_revision}"] if self.model_revision else []
        parts += [f"chunking {self.chunking}"] if self.chunking else []
        parts += [target] if target and target != self.identifier else []
        return " · ".join(parts)


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
