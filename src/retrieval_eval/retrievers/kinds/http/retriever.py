"""The ``http`` kind's retriever: one async HTTP client per retriever, connections reused.

- Each call renders the templates, sends one request under the call's deadline (the whole
  call, retries included) and reads the ranked ids (and scores, chunk ids) from the JSON
  answer with the configured JMESPath expressions.
- Failures are the question's error, never a miss: no connection, a dropped connection
  or 502/503/504 (retried while the deadline allows) -> ``unavailable``; 401/403 ->
  ``unauthenticated``; another 4xx -> ``rejected``; another 5xx -> ``internal``; an
  answer that is not JSON, a path that matches nothing, an id that is not a string, more
  results than ``limit`` -> ``contract``.
- Header values read from the environment are sent and nowhere else: messages quote the
  status and the start of the response body, never the request.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
from typing import TYPE_CHECKING, Any

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
from retrieval_eval.retrievers.contract.limits import MAX_RESPONSE_BYTES
from retrieval_eval.retrievers.kinds.base import admit
from retrieval_eval.retrievers.kinds.http.template import render_text
from retrieval_eval.retrievers.kinds.kind_retriever import KindRetriever
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:  # the config imports this module when it opens one
    from retrieval_eval.retrievers.kinds.http.config import HttpConfig

if TYPE_CHECKING:
    import httpx2

log = logging.getLogger(__name__)

#: Statuses worth another attempt (a proxy or the service is briefly unavailable).
RETRY_STATUSES = frozenset({502, 503, 504})
MAX_ATTEMPTS = 3
_BACKOFF_S = 0.05
_SNIPPET = 160


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
        self._client: httpx2.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _open(self) -> httpx2.AsyncClient:
        # the HTTP client only when the kind connects
        import httpx2

        limits = httpx2.Limits(
            max_connections=self.config.max_connections,
            max_keepalive_connections=self.config.max_connections,
        )
        self._loop = asyncio.get_running_loop()
        self._client = httpx2.AsyncClient(headers=self._headers, limits=limits, timeout=None)
        return self._client

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        try:
            async with asyncio.timeout(deadline):
                status, content = await self._send(question, limit)
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        if status >= 400:
            raise _status_error(self.target, status, content)
        return self._ranking(content, limit)

    async def _send(self, question: str, limit: int) -> tuple[int, bytes]:
        # the HTTP client only when the kind connects
        import httpx2

        client = self._client or self._open()
        config = self.config
        body = config.body.render(question, limit) if config.body is not None else None
        params = {k: render_text(v, question, limit) for k, v in config.params.items()} or None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                response = await client.request(
                    config.method, config.url, content=body, params=params
                )
                content = response.content
            except httpx2.TransportError as e:
                # A search is read-only: a dropped connection (refused, reset, closed
                # while idle) is worth another attempt; the call's deadline bounds them.
                if attempt == MAX_ATTEMPTS:
                    raise RetrieverUnavailable(
                        self.target,
                        f"{type(e).__name__}: {e or 'connection dropped'} "
                        f"(after {MAX_ATTEMPTS} attempts)",
                        "UNAVAILABLE",
                    ) from e
            else:
                if response.status_code not in RETRY_STATUSES or attempt == MAX_ATTEMPTS:
                    return response.status_code, content
            await asyncio.sleep(_BACKOFF_S * 2 ** (attempt - 1) * random.uniform(0.5, 1.0))
        raise AssertionError("unreachable")  # pragma: no cover

    def _ranking(self, content: bytes, limit: int) -> Ranking:
        if len(content) > MAX_RESPONSE_BYTES:
            raise RetrieverContractError(
                self.target, f"response of {len(content)} bytes, over the contract's limit"
            )
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
        client, self._client = self._client, None
        if client is not None and self._loop is asyncio.get_running_loop():
            await client.aclose()


def _snippet(content: bytes) -> str:
    text = content[:_SNIPPET].decode("utf-8", "replace")
    text = " ".join(text.split())
    return repr(text + ("…" if len(content) > _SNIPPET else ""))


def _status_error(target: str, status: int, content: bytes) -> RetrieverError:
    details = f"HTTP {status}: {_snippet(content)}"
    if status in (401, 403):
        return RetrieverUnauthenticated(target, details, f"HTTP_{status}")
    if status in RETRY_STATUSES:
        details += f" (after {MAX_ATTEMPTS} attempts)"
        return RetrieverUnavailable(target, details, f"HTTP_{status}")
    if status < 500:
        return RetrieverRejected(target, details, f"HTTP_{status}")
    return RetrieverInternal(target, details, f"HTTP_{status}")
