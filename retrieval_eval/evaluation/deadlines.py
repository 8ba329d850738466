"""Deadlines on retriever calls, whatever the retriever.

Our gRPC client and in-process adapter take a ``timeout_s`` keyword and enforce it
themselves (gRPC deadlines propagate to the server); for any other ``AsyncRetriever`` the
deadline is enforced here with ``asyncio.timeout``. Either way an overrun is a
``RetrieverTimeout``.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable

from retrieval_eval.errors import RetrieverTimeout, RetrieverUnavailable
from retrieval_eval.records import RetrieverDescription
from retrieval_eval.retrievers.types import AsyncRetriever, RetrievedItem

#: A retrieve call with its deadline bound: ``(question, limit) -> items``.
Call = Callable[[str, int], Awaitable[list[RetrievedItem]]]


def _accepts_timeout(method: Callable[..., object]) -> bool:
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "timeout_s" or p.kind is p.VAR_KEYWORD for p in parameters)


def with_deadline(retriever: AsyncRetriever, timeout_s: float) -> Call:
    """``retrieve`` bound to the deadline: passed through when the retriever takes a
    ``timeout_s`` (our gRPC client and in-process adapter do), else enforced here."""
    retrieve: Callable[..., Awaitable[list[RetrievedItem]]] = retriever.retrieve
    if _accepts_timeout(retrieve):
        return functools.partial(retrieve, timeout_s=timeout_s)

    async def bounded(question: str, limit: int) -> list[RetrievedItem]:
        try:
            async with asyncio.timeout(timeout_s):
                return await retrieve(question, limit)
        except TimeoutError as e:
            raise RetrieverTimeout(
                retriever.target, f"no answer within {timeout_s:g} s", "DEADLINE_EXCEEDED"
            ) from e

    return bounded


async def describe_once(retriever: AsyncRetriever, timeout_s: float) -> RetrieverDescription:
    """Describe, once, at the start: a retriever that cannot answer it stops the run."""
    describe: Callable[..., Awaitable[RetrieverDescription]] = retriever.describe
    try:
        if _accepts_timeout(describe):
            return await describe(timeout_s=timeout_s)
        async with asyncio.timeout(timeout_s):
            return await describe()
    except (RetrieverTimeout, TimeoutError) as e:
        raise RetrieverUnavailable(
            retriever.target, f"no answer to Describe within {timeout_s:g} s; is it running?"
        ) from e
