"""One retry policy for every remote call reval makes: the gRPC client, the ``http`` kind
and the model-server calls (embeddings, rerank).

1. Only a transient failure is tried again; which failures are transient is the caller's
   to say (a gRPC ``UNAVAILABLE``, a refused connection, an HTTP 503), everything else
   fails at once.
2. At most ``attempts`` attempts, the first included.
3. Before retry *n* the caller waits ``initial_s * 2**(n-1)``, capped at ``max_s`` and
   jittered down to half (so that clients failed together do not return together); a
   ``Retry-After`` the server sent replaces it, capped at ``max_s`` too.
4. A deadline covers the whole call: a wait that would end past it is not started, and the
   call fails with the last failure instead of a timeout that hides it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Backoff:
    """How often and how patiently to try a call again (the module docstring's rules)."""

    attempts: int = 4
    initial_s: float = 0.05
    max_s: float = 2.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {self.attempts}")

    def delay(self, retry: int, retry_after_s: float | None = None) -> float:
        """Seconds to wait before retry ``retry`` (1: the second attempt)."""
        if retry_after_s is not None:
            return min(self.max_s, max(0.0, retry_after_s))
        return min(self.max_s, self.initial_s * 2.0 ** (retry - 1)) * random.uniform(0.5, 1.0)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the caller says of one failed attempt."""

    transient: bool
    #: What the server asked for (``Retry-After``), if anything.
    retry_after_s: float | None = None
    #: A few words for the log: ``UNAVAILABLE``, ``HTTP 503``.
    reason: str = ""


class GaveUp(Exception):
    """The call failed for good: ``error`` is the last attempt's failure, ``attempts`` how
    many were made; the caller turns it into its own error."""

    def __init__(self, error: Exception, attempts: int, transient: bool) -> None:
        super().__init__(f"{error} (after {attempts} attempts)")
        self.error = error
        self.attempts = attempts
        #: The last failure was transient (the attempts or the time ran out).
        self.transient = transient

    @property
    def note(self) -> str:
        """`` (after N attempts)`` when the call was retried, else ""."""
        return f" (after {self.attempts} attempts)" if self.attempts > 1 else ""


async def retrying(
    attempt: Callable[[], Awaitable[T]],
    policy: Backoff,
    classify: Callable[[Exception], Verdict | None],
    *,
    first: Exception | None = None,
    deadline: float | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    label: str = "",
) -> T:
    """The result of ``attempt``, tried again after transient failures as ``policy`` says.

    ``classify`` judges a failure (None: not one of the call's own, it passes through
    unchanged); a failure it judges ends in ``GaveUp`` once it is not transient or the
    attempts or the time run out. ``first`` is a failure of a first attempt the caller made
    itself (a hot path skips this function until something fails); ``deadline`` is the
    ``time.monotonic()`` by which the call must be over; ``label`` names the call in the
    log (a debug line for each retry).
    """
    made, error = (0, None) if first is None else (1, first)
    while True:
        if error is None:
            made += 1
            try:
                return await attempt()
            except Exception as e:
                error = e
        verdict = classify(error)
        if verdict is None:
            raise error
        wait = policy.delay(made, verdict.retry_after_s)
        late = deadline is not None and time.monotonic() + wait >= deadline
        if not verdict.transient or made >= policy.attempts or late:
            raise GaveUp(error, made, verdict.transient) from error
        reason = verdict.reason or type(error).__name__
        log.debug("%s: %s, retry %d in %.3fs", label, reason, made, wait)
        await sleep(wait)
        error = None
