"""Plain records and protocols for retrievers; protobuf types never leave the edge."""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, overload, runtime_checkable

from retrieval_eval.records.run import RetrieverDescription


@dataclass(frozen=True, slots=True)
class RetrievedItem:
    """One ranked result. ``document_id`` may be a chunk id when the retriever declares
    a chunk separator."""

    document_id: str
    score: float | None = None
    chunk_id: str | None = None


@dataclass(frozen=True, slots=True)
class Ranking(Sequence[RetrievedItem]):
    """Ranked results as parallel columns: the form results travel in inside reval (client,
    in-process adapter, fusion, scoring), so that no record is built per result.

    ``scores`` and ``chunk_ids`` are either empty (no result has one) or hold one entry per
    document id. Indexing or iterating yields ``RetrievedItem`` records, built on demand
    for code that asks for items; ``notes`` say how the ranking was made (e.g. a fused
    retriever's skipped member) and end up on the question's outcome.
    """

    document_ids: tuple[str, ...]
    scores: tuple[float | None, ...] = ()
    chunk_ids: tuple[str | None, ...] = ()
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, items: Iterable[RetrievedItem], notes: tuple[str, ...] = ()) -> Ranking:
        """The ranking of ``items`` (records), in their order."""
        records = list(items)
        scores = tuple([i.score for i in records])
        chunks = tuple([i.chunk_id for i in records])
        return cls(
            tuple([i.document_id for i in records]),
            scores if any(s is not None for s in scores) else (),
            chunks if any(c is not None for c in chunks) else (),
            notes,
        )

    def __len__(self) -> int:
        return len(self.document_ids)

    @overload
    def __getitem__(self, index: int) -> RetrievedItem: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[RetrievedItem]: ...
    def __getitem__(self, index: int | slice) -> RetrievedItem | Sequence[RetrievedItem]:
        if isinstance(index, slice):
            return list(self)[index]
        return RetrievedItem(
            self.document_ids[index],
            self.scores[index] if self.scores else None,
            self.chunk_ids[index] if self.chunk_ids else None,
        )

    def __iter__(self) -> Iterator[RetrievedItem]:
        ids = self.document_ids
        scores = self.scores or (None,) * len(ids)
        chunks = self.chunk_ids or (None,) * len(ids)
        return map(RetrievedItem, ids, scores, chunks)

    def items(self) -> list[RetrievedItem]:
        """The results as records (for callers that want the user-facing form)."""
        return list(self)


#: One result as a user's ``retrieve`` may return it: a record, a plain document id, or
#: an ``(id, score)`` pair.
RetrievedLike = RetrievedItem | str | tuple[str, float]


@runtime_checkable
class Retriever(Protocol):
    """What a user writes: served by the SDK (``serve``) or evaluated in-process
    (``evaluate``). ``retrieve`` may be sync or async and returns, in rank order, at most
    ``limit`` results, each a ``RetrievedItem``, a document id or an ``(id, score)`` pair;
    or a ``Ranking`` (parallel columns of ids, scores and chunk ids), the cheapest form for
    a retriever that answers many questions.

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
    deadline (``timeout_s``; None = the configured one) and enforces it itself.

    Optionally, ``checks_answers = True`` declares that every ranking ``retrieve`` returns
    has already passed ``contract.limits.response_breach`` for the ``limit`` asked (a
    breach raised as ``RetrieverContractError``), so scoring does not judge it again;
    without it, scoring judges every answer."""

    #: Human-readable target (address or plugin name), used in messages and the store.
    target: str

    @property
    def configured_timeout_s(self) -> float | None:
        """The deadline this retriever was opened with (e.g. reval.toml); None = default."""
        ...

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking: ...

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
