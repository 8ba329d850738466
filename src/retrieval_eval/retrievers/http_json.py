"""POST JSON to a model server: what the embeddings client and the HTTP rerank scorer share.

- A 429, a 5xx or a refused or dropped connection is tried again, ``retries`` times at
  most, by reval's one retry policy (``backoff``: exponential, jittered, ``Retry-After``
  honoured up to ``MAX_BACKOFF_S``); any other status is not.
- ``timeout_s`` is the deadline of the whole call, retries and waits included.
- An answer is read to ``MAX_ANSWER_BYTES`` at most (compressed or not).
- The failure is an ``HttpCallError`` whose message is one line (status, the first line of
  the server's reason, attempts) for the caller to prefix with what it was calling.

The request goes through reval's one HTTP client (``http_client``). ``post_json`` blocks:
embedders and scorers are synchronous, called from any thread (an event loop's included,
which then waits as for any blocking call).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from retrieval_eval.errors import InfrastructureError
from retrieval_eval.retrievers.backoff import Backoff, GaveUp, Verdict, retrying

if TYPE_CHECKING:
    import aiohttp

T = TypeVar("T")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Longest wait between attempts, whatever ``Retry-After`` asks for.
MAX_BACKOFF_S = 8.0
#: The largest answer read: thousands of vectors, far from what memory can take.
MAX_ANSWER_BYTES = 256 * 2**20


class HttpCallError(InfrastructureError):
    """A JSON POST failed for good; ``status`` is the HTTP status (None: no answer)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """A model-server call's deadline and retries (the shared ``Backoff``'s terms)."""

    timeout_s: float = 30.0
    #: Attempts after the first, for 429 / 5xx / a refused or dropped connection.
    retries: int = 4
    backoff_s: float = 0.25

    @property
    def backoff(self) -> Backoff:
        return Backoff(attempts=self.retries + 1, initial_s=self.backoff_s, max_s=MAX_BACKOFF_S)


class _StatusFailure(Exception):
    def __init__(self, status: int, reason: str, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}{reason}")
        self.status = status
        self.retry_after = retry_after


def post_json(
    url: str,
    payload: Any,
    *,
    key: str | None = None,
    policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Any:
    """The decoded JSON answer of ``POST url``; ``HttpCallError`` when it fails for good.
    ``sleep`` waits between attempts (a test records the waits instead)."""
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    raw = _blocking(lambda: _post(url, body, headers, policy, sleep))
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise HttpCallError(f"answer is not JSON: {e}") from e


async def _post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    policy: RetryPolicy,
    sleep: Callable[[float], Awaitable[None]],
) -> bytes:
    # The client's import (aiohttp) waits for a first call: most commands that load this
    # module (a rerank stage's checks, an embedder's options) never make one.
    from retrieval_eval.retrievers.http_client import (
        open_session,
        proxy_for,
        read_body,
        retry_after_s,
        transport_problem,
        transport_verdict,
    )

    def classify(error: Exception) -> Verdict | None:
        if isinstance(error, _StatusFailure):
            return Verdict(error.status in RETRY_STATUSES, error.retry_after, str(error))
        return transport_verdict(error)

    async def attempt() -> bytes:
        async with session.post(url, data=body, proxy=proxy) as response:
            if response.status >= 400:
                wait = retry_after_s(response.headers.get("Retry-After"))
                raise _StatusFailure(response.status, await _reason(response), wait)
            return await read_body(response, MAX_ANSWER_BYTES)

    proxy = proxy_for(url)
    deadline = time.monotonic() + policy.timeout_s
    async with open_session(headers, max_connections=1) as session:
        try:
            async with asyncio.timeout(policy.timeout_s):
                return await retrying(
                    attempt, policy.backoff, classify, deadline=deadline, sleep=sleep, label=url
                )
        except TimeoutError:
            raise HttpCallError(f"no answer within {policy.timeout_s:g} s") from None
        except GaveUp as e:
            error = e.error
            tries = f" after {e.attempts} attempts" if e.attempts > 1 else ""
            if isinstance(error, _StatusFailure):
                raise HttpCallError(f"{error}{tries}", error.status) from error
            raise HttpCallError(f"{transport_problem(error)}{tries}") from error


async def _reason(response: aiohttp.ClientResponse) -> str:
    """The first line of the error body, short (servers put the reason there)."""
    if response.headers.get("Content-Encoding", "identity").lower() != "identity":
        return ""  # compressed: not worth decoding for a line of reason
    try:
        text = (await response.content.read(300)).decode("utf-8", "replace").strip()
    except Exception:
        return ""
    line = text.splitlines()[0] if text else ""
    return f" ({line[:200]})" if line else ""


def _blocking(call: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``call()`` to its end from synchronous code; from an event loop's thread, on a
    thread and a loop of its own while this one waits."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(call())
    with concurrent.futures.ThreadPoolExecutor(1, "reval-http") as pool:
        return pool.submit(lambda: asyncio.run(call())).result()
