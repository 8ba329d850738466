"""Deadlines on retriever calls.

Every ``AsyncRetriever`` takes its deadline as ``timeout_s`` and enforces it itself (gRPC
deadlines propagate to the server; the in-process adapter bounds the user's call), so the
coordinator binds the deadline once per retriever and never wraps a call of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from retrieval_eval.errors import RetrieverTimeout, RetrieverUnavailable
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import AsyncRetriever, Ranking

#: A retrieve call with its deadline bound: ``(question, limit) -> ranking``.
Call = Callable[[str, int], Awaitable[Ranking]]


def with_deadline(retriever: AsyncRetriever, timeout_s: float) -> Call:
    """``retrieve`` bound to the deadline."""
    return functools.partial(retriever.retrieve, timeout_s=timeout_s)


async def describe_once(retriever: AsyncRetriever, timeout_s: float) -> RetrieverDescription:
    """Describe, once, at the start: a retriever that cannot answer it stops the run."""
    try:
        return await retriever.describe(timeout_s=timeout_s)
    except (RetrieverTimeout, TimeoutError) as e:
        raise RetrieverUnavailable(
            retriever.target, f"no answer to Describe within {timeout_s:g} s; is it running?"
        ) from e
