"""Call a user's retriever object the same way whether its methods are sync or async.

Used by the gRPC server SDK and by in-process plugins, so that both accept the same
objects: ``retrieve`` may be a plain function (run in a worker thread so that it never
blocks the event loop) or a coroutine function; it may return ``RetrievedItem`` records,
plain string ids or ``(id, score)`` pairs, or a ``Ranking`` (columns, checked as they are).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.contract.limits import (
    ContractBreach,
    description_breach,
    response_breach,
)
from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem

RetrieveFn = Callable[[str, int], Awaitable[Ranking]]


def make_retrieve(obj: Any) -> RetrieveFn:
    """An async ``(question, limit) -> items`` for ``obj.retrieve``, decided once.

    Raises ``TypeError`` when ``obj`` has no callable ``retrieve``.
    """
    method = getattr(obj, "retrieve", None)
    if not callable(method):
        raise TypeError(f"{type(obj).__name__} has no callable retrieve(question, limit)")
    if inspect.iscoroutinefunction(method):

        async def call_async(question: str, limit: int) -> Ranking:
            return normalize_items(await method(question, limit), limit)

        return call_async

    async def call_sync(question: str, limit: int) -> Ranking:
        result = await asyncio.to_thread(method, question, limit)
        if inspect.isawaitable(result):  # a sync wrapper that hands back a coroutine
            result = await result
        return normalize_items(result, limit)

    return call_sync


def normalize_items(result: Any, limit: int) -> Ranking:
    """Validate what ``retrieve`` returned and turn it into a ``Ranking``: records, plain
    ids and pairs are taken apart; a ``Ranking`` is checked column by column."""
    ranking = checked_ranking(result) if isinstance(result, Ranking) else _ranking_of(result)
    breach = response_breach(ranking, limit)
    if breach is not None:
        raise ContractBreach(f"retrieve() breaks the contract: {breach}")
    return ranking


def _ranking_of(result: Any) -> Ranking:
    if isinstance(result, str | bytes) or not isinstance(result, Iterable):
        raise TypeError(
            "retrieve() must return a Ranking or a list of RetrievedItem, str or "
            f"(id, score), got {type(result).__name__}"
        )
    ids: list[str] = []
    scores: list[float | None] = []
    chunks: list[str | None] = []
    for rank, item in enumerate(result):
        if isinstance(item, str):
            ids.append(item)
            scores.append(None)
            chunks.append(None)
            continue
        if isinstance(item, tuple):
            item = _from_pair(item, rank)
        elif not isinstance(item, RetrievedItem):
            raise TypeError(
                f"retrieve() result {rank} is {type(item).__name__}, "
                "expected RetrievedItem, str or (id, score)"
            )
        ids.append(item.document_id)
        scores.append(item.score)
        chunks.append(item.chunk_id)
    return Ranking(
        tuple(ids),
        tuple(scores) if any(s is not None for s in scores) else (),
        tuple(chunks) if any(c is not None for c in chunks) else (),
    )


def checked_ranking(ranking: Ranking) -> Ranking:
    """``ranking`` with tuple columns of the declared types (a plugin is not type-checked
    with reval); ``TypeError`` naming the first culprit otherwise."""
    ids, scores, chunks = (
        tuple(ranking.document_ids),
        tuple(ranking.scores),
        tuple(ranking.chunk_ids),
    )
    for name, column in (("scores", scores), ("chunk_ids", chunks)):
        if column and len(column) != len(ids):
            raise TypeError(
                f"retrieve() returned a Ranking with {len(column)} {name} "
                f"for {len(ids)} document ids"
            )
    for rank, doc in enumerate(ids):
        if not isinstance(doc, str):
            raise TypeError(f"retrieve() result {rank}: document id {doc!r} is not a str")
    if any(type(s) is not float and s is not None for s in scores):
        scores = tuple([_score(s, rank) for rank, s in enumerate(scores)])
    for rank, chunk in enumerate(chunks):
        if chunk is not None and not isinstance(chunk, str):
            raise TypeError(f"retrieve() result {rank}: chunk id {chunk!r} is not a str")
    if ids is ranking.document_ids and scores is ranking.scores and chunks is ranking.chunk_ids:
        return ranking  # already tuples of the declared types: no copy
    return Ranking(ids, scores, chunks, tuple(ranking.notes))


def _score(score: Any, rank: int) -> float | None:
    if score is not None and (isinstance(score, bool) or not isinstance(score, int | float)):
        raise TypeError(f"retrieve() result {rank}: score {score!r} is not a number")
    return None if score is None else float(score)


def _from_pair(pair: tuple[Any, ...], rank: int) -> RetrievedItem:
    """``(id, score)`` -> a record; anything else shaped like a tuple is a ``TypeError``."""
    if len(pair) != 2 or not isinstance(pair[0], str):
        raise TypeError(f"retrieve() result {rank} is a tuple but not (id: str, score)")
    document_id, score = pair
    return RetrievedItem(document_id, _score(score, rank))


def describe_of(obj: Any, fallback: RetrieverDescription | None = None) -> RetrieverDescription:
    """``obj.describe()`` if it has one, else ``fallback``, else the class name.

    ``describe`` is called synchronously (use ``call_describe`` for an async one); it may
    return a ``RetrieverDescription`` or a plain identifier string.
    """
    method = getattr(obj, "describe", None)
    if not callable(method):
        return fallback or RetrieverDescription(identifier=type(obj).__name__)
    if inspect.iscoroutinefunction(method):
        raise TypeError(f"{type(obj).__name__}.describe() is async; use call_describe()")
    return _checked_description(obj, method())


async def call_describe(
    obj: Any, fallback: RetrieverDescription | None = None
) -> RetrieverDescription:
    """Like ``describe_of`` but also accepts an async ``describe``."""
    method = getattr(obj, "describe", None)
    if callable(method) and inspect.iscoroutinefunction(method):
        return _checked_description(obj, await method())
    return describe_of(obj, fallback)


def _checked_description(obj: Any, described: Any) -> RetrieverDescription:
    if isinstance(described, str):
        described = RetrieverDescription(identifier=described)
    if not isinstance(described, RetrieverDescription):
        raise TypeError(
            f"{type(obj).__name__}.describe() returned {type(described).__name__}, "
            "expected RetrieverDescription"
        )
    breach = description_breach(described)
    if breach is not None:
        raise ContractBreach(f"{type(obj).__name__}.describe(): {breach}")
    return described
