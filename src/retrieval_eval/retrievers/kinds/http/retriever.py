"""The ``http`` kind's retriever: one session of reval's HTTP client per retriever,
connections reused.

- Each call renders the templates, sends one request under the call's deadline (the whole
  call: retries, waits and reading the answer) and reads the ranked ids (and scores, chunk
  ids) from the JSON answer with the configured JMESPath expressions.
- Failures are the question's error, never a miss: no connection, a dropped connection
  or 502/503/504 (retried by the shared policy, ``backoff``, while the deadline allows)
  -> ``unavailable``; 401/403 -> ``unauthenticated``; another 4xx -> ``rejected``; another
  5xx -> ``internal``; an answer over the contract's size (decompressed or not: it is
  read no further), that is not JSON, a path that matches nothing, an id that is not a
  string, more results than ``limit`` -> ``contract``.
- Header values read from the environment are sent and nowhere else: messages quote the
  status and the start of the response body, never the request.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import TYPE_CHECKING, Any

import aiohttp

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverError,
    RetrieverInternal,
    RetrieverRejected,
    RetrieverTimeout,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)
from retrieval_eval.retrievers.backoff import Backoff, GaveUp, Verdict, retrying
from retrieval_eval.retrievers.contract.limits import MAX_RESPONSE_BYTES
from retrieval_eval.retrievers.http_client import (
    BadEncoding,
    BodyTooLarge,
    open_session,
    proxy_for,
    read_body,
    retry_after_s,
    transport_problem,
    transport_verdict,
)
from retrieval_eval.retrievers.kinds.base import admit
from retrieval_eval.retrievers.kinds.http.template import render_text
from retrieval_eval.retrievers.kinds.kind_retriever import KindRetriever
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:  # the config imports this module when it opens one
    from retrieval_eval.retrievers.kinds.http.config import HttpConfig


#: Statuses worth another attempt (a proxy or the service is briefly unavailable).
RETRY_STATUSES = frozenset({502, 503, 504})
#: A search is read-only: a dropped connection or a 502-504 is worth two more attempts.
BACKOFF = Backoff(attempts=3, initial_s=0.05, max_s=1.0)
_SNIPPET = 160


class _StatusFailure(Exception):
    """An answer with an error status (its start read for the message)."""

    def __init__(self, status: int, content: bytes, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}")
        self.status, self.content, self.retry_after = status, content, retry_after


def _classify(error: Exception) -> Verdict | None:
    if isinstance(error, _StatusFailure):
        return Verdict(error.status in RETRY_STATUSES, error.retry_after, str(error))
    return transport_verdict(error)


class HttpRetriever(KindRetriever):
    """``AsyncRetriever`` over an ``http`` entry of reval.toml."""

    config: HttpConfig

    def __init__(self, config: HttpConfig, timeout_s: float | None = None) -> None:
        super().__init__(config, timeout_s, target=f"{config.common.name} ({config.url})")
        try:
            self._headers = config.expanded_headers(os.environ)
        except KeyError as e:
            raise ConfigError(
                f"{config.common.where}: key 'headers': environment variable {e.args[0]} is not set"
            ) from None
        if config.body is not None and "content-type" not in {h.lower() for h in self._headers}:
            self._headers["Content-Type"] = "application/json"
        self._ids, self._scores, self._chunks = config.paths()
        self._proxy = proxy_for(config.url)
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _open(self) -> aiohttp.ClientSession:
        self._loop = asyncio.get_running_loop()
        self._session = open_session(self._headers, self.config.max_connections)
        return self._session

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        try:
            async with asyncio.timeout(deadline):
                content = await self._send(question, limit, time.monotonic() + deadline)
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        return self._ranking(content, limit)

    async def _send(self, question: str, limit: int, deadline: float) -> bytes:
        session = self._session
        if session is None or self._loop is not asyncio.get_running_loop():
            session = self._open()
        config = self.config
        body = config.body.render(question, limit) if config.body is not None else None
        params = {k: render_text(v, question, limit) for k, v in config.params.items()} or None

        async def attempt() -> bytes:
            async with session.request(
                config.method, config.url, data=body, params=params, proxy=self._proxy
            ) as response:
                if response.status >= 400:
                    start = await read_body(response, _SNIPPET + 1, truncate=True)
                    wait = retry_after_s(response.headers.get("Retry-After"))
                    raise _StatusFailure(response.status, start, wait)
                return await read_body(response, MAX_RESPONSE_BYTES)

        try:
            return await retrying(attempt, BACKOFF, _classify, deadline=deadline, label=self.target)
        except GaveUp as e:
            raise self._failure(e) from e.error

    def _failure(self, gave_up: GaveUp) -> RetrieverError:
        error = gave_up.error
        if isinstance(error, _StatusFailure):
            return _status_error(self.target, error.status, error.content, gave_up.note)
        if isinstance(error, BodyTooLarge):
            return RetrieverContractError(
                self.target, f"response of {error}, over the contract's limit"
            )
        if isinstance(error, BadEncoding):
            return RetrieverContractError(self.target, str(error))
        return RetrieverUnavailable(
            self.target, f"{transport_problem(error)}{gave_up.note}", "UNAVAILABLE"
        )

    def _ranking(self, content: bytes, limit: int) -> Ranking:
        try:
            document = json.loads(content)
        except (ValueError, UnicodeDecodeError) as e:
            raise RetrieverContractError(
                self.target, f"response is not JSON ({e}): {_snippet(content)}"
            ) from None
        ids = self._column("ids", self.config.ids, self._ids(document), (str,), False)
        if len(ids) > limit:
            raise RetrieverContractError(self.target, f"{len(ids)} results for limit {limit}")
        scores: tuple[Any, ...] = ()
        chunks: tuple[Any, ...] = ()
        if self._scores is not None:
            found = self._scores(document)
            scores = self._column("scores", self.config.scores, found, (int, float), True)
            scores = tuple([None if s is None else float(s) for s in scores])
            self._same_length("scores", scores, ids)
        if self._chunks is not None:
            found = self._chunks(document)
            chunks = self._column("chunk_ids", self.config.chunk_ids, found, (str,), True)
            self._same_length("chunk_ids", chunks, ids)
        ranking = Ranking(
            ids,
            scores if any(s is not None for s in scores) else (),
            chunks if any(c is not None for c in chunks) else (),
        )
        return self.checked(ranking, limit)

    def _column(
        self, key: str, path: str | None, found: Any, types: tuple[type, ...], nullable: bool
    ) -> tuple[Any, ...]:
        """The values ``path`` found, checked: a list of ``types`` (or null if allowed)."""
        if found is None:
            raise RetrieverContractError(
                self.target, f"{key} path {path!r} matches nothing in the response"
            )
        if not isinstance(found, list):
            raise RetrieverContractError(
                self.target,
                f"{key} path {path!r} gives a {type(found).__name__}, not a list",
            )
        for rank, value in enumerate(found, start=1):
            ok = (value is None and nullable) or (
                isinstance(value, types) and not isinstance(value, bool)
            )
            if not ok:
                wanted = "a string" if types == (str,) else "a number"
                hint = "; convert it in the path with to_string(...)" if types == (str,) else ""
                raise RetrieverContractError(
                    self.target,
                    f"{key} path {path!r}: the value at rank {rank} is "
                    f"{json.dumps(value)[:80]}, not {wanted}{hint}",
                )
        return tuple(found)

    def _same_length(self, key: str, column: tuple[Any, ...], ids: tuple[str, ...]) -> None:
        if len(column) != len(ids):
            raise RetrieverContractError(
                self.target,
                f"{len(column)} {key} for {len(ids)} ids in the response (a JMESPath "
                "projection skips nulls: every result needs one, or leave the key out)",
            )

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()


def _snippet(content: bytes) -> str:
    text = content[:_SNIPPET].decode("utf-8", "replace")
    text = " ".join(text.split())
    return repr(text + ("…" if len(content) > _SNIPPET else ""))


def _status_error(target: str, status: int, content: bytes, note: str) -> RetrieverError:
    details = f"HTTP {status}: {_snippet(content)}"
    if status in (401, 403):
        return RetrieverUnauthenticated(target, details, f"HTTP_{status}")
    if status in RETRY_STATUSES:
        return RetrieverUnavailable(target, details + note, f"HTTP_{status}")
    if status < 500:
        return RetrieverRejected(target, details, f"HTTP_{status}")
    return RetrieverInternal(target, details, f"HTTP_{status}")
