"""The ``postgres`` kind's retriever: a small pool of psycopg async connections.

- Connections open on first use (on the caller's loop), at most ``pool_size``, autocommit
  (each query is its own statement; nothing is written).
- A call past its deadline is a ``timeout``; its connection is closed rather than reused
  (it may still be busy). A lost connection (a server restart closes every pooled one)
  or one that cannot be made is tried again on a fresh connection, up to
  ``MAX_ATTEMPTS`` attempts within the call's deadline, as the other kinds retry; the
  idle connections are dropped with it. A server that stays unreachable is
  ``unavailable``; refused
  credentials (a wrong password, an unknown user) ``unauthenticated``; an SQL error (a
  misspelt column) ``rejected`` with the server's message; a row whose id is not text,
  or a score that is not a number, ``contract``.
- With ``embedder``, the embedder is created when the retriever opens (an unknown one is a
  configuration error) and the question is embedded in a worker thread inside the call's
  deadline; its vector goes in as ``:embedding``, a ``float8[]``. An embedder that fails
  (an embeddings endpoint down) makes the question ``unavailable``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from retrieval_eval.errors import (
    RetrieverContractError,
    RetrieverInternal,
    RetrieverRejected,
    RetrieverTimeout,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)
from retrieval_eval.retrievers.embedding import Embedder, EmbeddingError, load_embedder
from retrieval_eval.retrievers.kinds.base import admit, env_value
from retrieval_eval.retrievers.kinds.kind_retriever import KindRetriever
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:  # the config imports this module when it opens one
    from retrieval_eval.retrievers.kinds.postgres.config import PostgresConfig

if TYPE_CHECKING:
    import psycopg

log = logging.getLogger(__name__)
#: Attempts per question while the connection is lost or refused (as the http kind's),
#: within the call's deadline, with jittered backoff doubling from ``_BACKOFF_S``.
MAX_ATTEMPTS = 3
_BACKOFF_S = 0.05
#: The server refusing the user itself (no sqlstate comes with a refused connection).
_UNKNOWN_ROLE = re.compile(r'role "[^"]*" does not exist')


class PostgresRetriever(KindRetriever):
    """``AsyncRetriever`` over a ``postgres`` entry of reval.toml."""

    config: PostgresConfig

    def __init__(self, config: PostgresConfig, timeout_s: float | None = None) -> None:
        super().__init__(config, timeout_s)
        self._password = (
            env_value(config.common, "password_env", config.password_env)
            if config.password_env
            else None
        )
        self._dsn = config.connection_string()
        self._sql = config.sql()
        self.embedder: Embedder | None = (
            load_embedder(config.embedder, config.embedder_options) if config.embedder else None
        )
        self._idle: list[psycopg.AsyncConnection[Any]] = []
        self._free: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _connect(self) -> psycopg.AsyncConnection[Any]:
        """A new connection; ``_Lost`` when the server cannot be reached (worth another
        attempt), ``RetrieverUnauthenticated`` when it refuses the credentials (not)."""
        # psycopg only when the kind connects
        import psycopg

        extra: dict[str, Any] = {"password": self._password} if self._password else {}
        try:
            return await psycopg.AsyncConnection.connect(self._dsn, autocommit=True, **extra)
        except psycopg.OperationalError as e:
            message = " ".join(str(e).split())
            if (
                "authentication" in message
                or "password" in message
                or _UNKNOWN_ROLE.search(message)
            ):
                raise RetrieverUnauthenticated(self.target, message) from e
            raise _Lost(message) from e

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        if self._free is None:
            self._loop = asyncio.get_running_loop()
            self._free = asyncio.Semaphore(self.config.pool_size)
        try:
            async with asyncio.timeout(deadline):
                parameters = await self._parameters(question, limit)
                rows = await self._query(parameters)
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        return self._ranking(rows, limit)

    async def _query(self, parameters: dict[str, Any]) -> list[Any]:
        """The query's rows, in up to ``MAX_ATTEMPTS`` attempts while the connection is
        lost or cannot be made (a restarted server closes every pooled connection: those
        are dropped and the next attempt opens a fresh one)."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                return await self._attempt(parameters)
            except _Lost as lost:
                if attempt == MAX_ATTEMPTS:
                    raise RetrieverUnavailable(
                        self.target, f"{lost.message} (after {MAX_ATTEMPTS} attempts)"
                    ) from lost.__cause__
                log.debug("%s: %s; attempt %d", self.target, lost.message, attempt + 1)
            await asyncio.sleep(_BACKOFF_S * 2 ** (attempt - 1) * random.uniform(0.5, 1.0))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _attempt(self, parameters: dict[str, Any]) -> list[Any]:
        import psycopg

        assert self._free is not None
        async with self._free:
            connection = self._idle.pop() if self._idle else await self._connect()
            try:
                cursor = await connection.execute(self._sql, parameters)
                rows = await cursor.fetchall()
            except psycopg.OperationalError as e:
                lost = connection.broken  # the server went away (stopped, restarted)
                await _discard(connection)
                message = " ".join(str(e).split())
                if lost:
                    await self._drop_idle()  # the others were opened on it too
                    raise _Lost(message) from e
                raise RetrieverUnavailable(self.target, message) from e
            except psycopg.Error as e:  # the server's answer: the connection stays usable
                self._idle.append(connection)
                raise RetrieverRejected(
                    self.target, " ".join(str(e).split()), getattr(e, "sqlstate", None)
                ) from e
            except BaseException:
                await _discard(connection)  # timed out or cancelled: it may still be busy
                raise
        self._idle.append(connection)
        return rows

    async def _drop_idle(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await _discard(connection)

    async def _parameters(self, question: str, limit: int) -> dict[str, Any]:
        """The query's parameters; ``embedding`` a list of Python floats, which psycopg
        binds as ``float8[]``."""
        parameters: dict[str, Any] = {"question": question, "limit": limit}
        if self.embedder is not None:
            try:
                [vector] = await asyncio.to_thread(self.embedder.embed, [question])
            except EmbeddingError as e:
                raise RetrieverUnavailable(self.target, str(e)) from e
            except Exception as e:
                message = " ".join(str(e).split())
                raise RetrieverInternal(
                    self.target, f"embedding the question failed: {type(e).__name__}: {message}"
                ) from e
            parameters["embedding"] = [float(x) for x in vector]
        return parameters

    def _ranking(self, rows: list[Any], limit: int) -> Ranking:
        if len(rows) > limit:
            raise RetrieverContractError(self.target, f"{len(rows)} rows for limit {limit}")
        ids: list[str] = []
        scores: list[float | None] = []
        for rank, row in enumerate(rows, start=1):
            document_id = row[0] if row else None
            if not isinstance(document_id, str):
                raise RetrieverContractError(
                    self.target,
                    f"row {rank}: the id {document_id!r} is not text; select it as id::text",
                )
            score = row[1] if len(row) > 1 else None
            if isinstance(score, Decimal):
                score = float(score)
            if score is not None and (
                isinstance(score, bool) or not isinstance(score, int | float)
            ):
                raise RetrieverContractError(
                    self.target, f"row {rank}: the score {score!r} is not a number"
                )
            ids.append(document_id)
            scores.append(None if score is None else float(score))
        scored = tuple(scores) if any(s is not None for s in scores) else ()
        return self.checked(Ranking(tuple(ids), scored), limit)

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        if self._loop is not asyncio.get_running_loop():
            return
        for connection in idle:
            await _discard(connection)


class _Lost(Exception):
    """The connection was lost or could not be made: the server is down or restarted."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


async def _discard(connection: psycopg.AsyncConnection[Any]) -> None:
    try:
        await connection.close()
    except Exception:  # pragma: no cover - closing a broken connection
        log.debug("closing a connection failed", exc_info=True)
