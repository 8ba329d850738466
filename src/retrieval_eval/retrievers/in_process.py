"""An in-process plugin object, made to behave exactly like a remote retriever.

The coordinator talks to ``AsyncRetriever`` only; this adapter gives a plugin object the
same validation as our gRPC servers (empty question, limit outside 1..1000, oversized
question -> ``RetrieverRejected`` with code INVALID_ARGUMENT) and the same failure types
(an exception in user code -> ``RetrieverInternal``; a slow call -> ``RetrieverTimeout``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from retrieval_eval.errors import (
    InputError,
    RetrieverContractError,
    RetrieverError,
    RetrieverInternal,
    RetrieverRejected,
    RetrieverTimeout,
)
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.adapt import call_describe, make_retrieve
from retrieval_eval.retrievers.contract.limits import ContractBreach, request_problem
from retrieval_eval.retrievers.protocol import AsyncRetriever, Ranking

log = logging.getLogger(__name__)
T = TypeVar("T")


class InProcessRetriever:
    """``AsyncRetriever`` over a plugin object with ``retrieve`` (sync or async) and an
    optional ``describe`` and ``close``."""

    #: Every ranking ``retrieve`` returns has passed the contract check for its limit
    #: (``adapt.normalize_items``).
    checks_answers = True

    def __init__(
        self,
        obj: Any,
        *,
        target: str,
        timeout_s: float | None = None,
        fallback: RetrieverDescription | None = None,
        owned: bool = True,
    ) -> None:
        self.obj = obj
        self.target = target
        self.timeout_s = timeout_s
        self._fallback = fallback
        #: Whether ``close`` closes ``obj`` (False for objects the caller owns).
        self._owned = owned
        try:
            self._retrieve = make_retrieve(obj)
        except TypeError as e:
            raise RetrieverInternal(target, str(e)) from e

    @property
    def configured_timeout_s(self) -> float | None:
        """The deadline this retriever was opened with (e.g. from reval.toml)."""
        return self.timeout_s

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        problem = request_problem(question, limit)
        if problem is not None:
            raise RetrieverRejected(self.target, problem, "INVALID_ARGUMENT")
        deadline = timeout_s if timeout_s is not None else self.timeout_s
        return await self._mapped(self._retrieve(question, limit), deadline, "")

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        deadline = timeout_s if timeout_s is not None else self.timeout_s
        return await self._mapped(call_describe(self.obj, self._fallback), deadline, "describe(): ")

    async def _mapped(self, call: Awaitable[T], deadline: float | None, what: str) -> T:
        """Await ``call`` within ``deadline``; what user code raises becomes the
        retriever error a gRPC retriever would give (never a miss)."""
        try:
            async with asyncio.timeout(deadline):
                return await call
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"{what}no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        except RetrieverError:
            raise
        except ContractBreach as e:
            raise RetrieverContractError(self.target, str(e)) from e
        except Exception as e:
            log.debug("retriever %s failed", self.target, exc_info=True)
            raise RetrieverInternal(
                self.target, f"{what}{_describe_exception(e)}", "INTERNAL"
            ) from e

    async def close(self) -> None:
        """Close the plugin object if it has ``close`` (sync or async) and this adapter owns
        it; errors are logged."""
        method = getattr(self.obj, "close", None)
        if not self._owned or not callable(method):
            return
        try:
            result = method()
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.warning("closing retriever %s failed", self.target, exc_info=True)

    async def __aenter__(self) -> InProcessRetriever:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"InProcessRetriever({self.target!r})"


def _describe_exception(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def as_async_retriever(obj: object, *, timeout_s: float | None = None) -> AsyncRetriever:
    """``obj`` as the coordinator's ``AsyncRetriever``: our own clients and adapters as they
    are, any other object with ``retrieve`` through an adapter that leaves it open (the
    caller owns it). Its target is its ``target`` attribute if it has one, else its class
    name. Raises ``InputError`` for an object without a callable ``retrieve``."""
    if isinstance(obj, AsyncRetriever):
        return obj
    if not callable(getattr(obj, "retrieve", None)):
        raise InputError(
            f"{type(obj).__name__} is not a retriever: give an address, a name, or an object "
            "with a retrieve(question, limit) method"
        )
    target = getattr(obj, "target", None)
    if not isinstance(target, str) or not target:
        target = type(obj).__name__
    return InProcessRetriever(obj, target=target, timeout_s=timeout_s, owned=False)
