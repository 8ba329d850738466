"""POST JSON to a model server, with bounded retries: what the embeddings client and the
HTTP rerank scorer share.

A 429, a 5xx or a refused connection is retried up to ``retries`` times with exponential
backoff (``Retry-After`` honoured, capped); a timeout or any other status is not. The
failure is an ``HttpCallError`` whose message is one line (status, the first line of the
server's reason, attempts) for the caller to prefix with what it was calling. The stdlib's
client: no HTTP stack to install for the few calls a model server needs.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from retrieval_eval.errors import InfrastructureError

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Longest wait between attempts, whatever ``Retry-After`` asks for.
MAX_BACKOFF_S = 8.0


class HttpCallError(InfrastructureError):
    """A JSON POST failed for good; ``status`` is the HTTP status (None: no answer)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    timeout_s: float = 30.0
    #: Attempts after the first, for 429 / 5xx / connection refused.
    retries: int = 4
    backoff_s: float = 0.25


def post_json(
    url: str,
    payload: Any,
    *,
    key: str | None = None,
    policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """The decoded JSON answer of ``POST url``; ``HttpCallError`` when it fails for good."""
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    attempt = 0
    while True:
        request = urllib.request.Request(url, body, headers, method="POST")
        status: int | None = None
        try:
            with urllib.request.urlopen(request, timeout=policy.timeout_s) as response:
                raw = response.read()
            break
        except urllib.error.HTTPError as e:
            status, retry = e.code, e.code in RETRY_STATUSES
            problem = f"HTTP {e.code}{_reason(e)}"
            wait = _retry_after(e.headers.get("Retry-After"))
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            reason = getattr(e, "reason", e)
            timed_out = isinstance(e, TimeoutError) or isinstance(reason, TimeoutError)
            retry, wait = not timed_out and not isinstance(reason, str), None
            problem = (
                f"no answer within {policy.timeout_s:g} s"
                if timed_out
                else f"cannot connect: {reason}"
            )
        if not retry or attempt >= policy.retries:
            tries = f" after {attempt + 1} attempts" if attempt else ""
            raise HttpCallError(f"{problem}{tries}", status)
        sleep(min(MAX_BACKOFF_S, wait if wait is not None else policy.backoff_s * 2**attempt))
        attempt += 1
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise HttpCallError(f"answer is not JSON: {e}") from e


def _reason(error: urllib.error.HTTPError) -> str:
    """The first line of the error body, short (servers put the reason there)."""
    try:
        text = error.read(300).decode("utf-8", "replace").strip()
    except Exception:
        return ""
    line = text.splitlines()[0] if text else ""
    return f" ({line[:200]})" if line else ""


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None
