"""What every kind's retriever shares around its own way of asking: the name messages
give it, its timeout, the contract's response limits, its Describe answer (the entry's
identity, ``base.describe_kind``), and closing as an async context manager.

A kind subclasses ``KindRetriever``, writes ``retrieve`` (``base.admit`` first, then
``checked`` on the ranking it builds) and, if it holds something open, ``close``.
"""

from __future__ import annotations

from typing import Self

from retrieval_eval.errors import RetrieverContractError
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.contract.limits import response_breach
from retrieval_eval.retrievers.kinds.base import KindConfig, describe_kind
from retrieval_eval.retrievers.protocol import Ranking


class KindRetriever:
    """The shared part of a kind entry's ``AsyncRetriever``."""

    def __init__(
        self, config: KindConfig, timeout_s: float | None = None, *, target: str | None = None
    ) -> None:
        self.config = config
        #: How messages name it: the entry's name and what it reaches (never a secret).
        self.target = target or f"{config.common.name} ({config.detail()})"
        #: The caller's timeout, else the entry's (else reval's default, in ``admit``).
        self.timeout_s = timeout_s if timeout_s is not None else config.common.timeout_s

    @property
    def configured_timeout_s(self) -> float | None:
        return self.timeout_s

    def checked(self, ranking: Ranking, limit: int) -> Ranking:
        """``ranking``, unless it breaks the contract's response limits (a ``contract``
        error: never repaired, never a miss)."""
        breach = response_breach(ranking, limit)
        if breach is not None:
            raise RetrieverContractError(self.target, breach)
        return ranking

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        return describe_kind(self.config)

    async def close(self) -> None:
        return None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.target!r})"
