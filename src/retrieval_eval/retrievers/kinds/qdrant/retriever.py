"""The ``qdrant`` kind's retriever: embed the question, ``query_points`` on the collection.

- The embedder is created when the retriever opens (an unknown embedder or bad option is a
  configuration error); the client connects on first use, on the caller's loop. Embedding
  runs in a worker thread (it is synchronous), inside the call's deadline.
- A collection that does not exist, or a vector name it does not have, is ``rejected``
  with Qdrant's message; a server that cannot be reached (or a 5xx) ``unavailable``; a
  refused API key ``unauthenticated``; an answer that is not JSON, or not the shape of
  Qdrant's, and a point without the ``id_key`` payload (or whose value is not a string or
  integer) ``contract``.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from retrieval_eval.errors import (
    ConfigError,
    RetrieverContractError,
    RetrieverError,
    RetrieverRejected,
    RetrieverTimeout,
    RetrieverUnauthenticated,
    RetrieverUnavailable,
)
from retrieval_eval.retrievers.embedding import load_embedder
from retrieval_eval.retrievers.kinds.base import admit, env_value
from retrieval_eval.retrievers.kinds.kind_retriever import KindRetriever
from retrieval_eval.retrievers.protocol import Ranking

if TYPE_CHECKING:
    from qdrant_client import AsyncQdrantClient

    from retrieval_eval.retrievers.kinds.qdrant.config import QdrantConfig


class QdrantRetriever(KindRetriever):
    """``AsyncRetriever`` over a ``qdrant`` entry of reval.toml."""

    config: QdrantConfig

    def __init__(self, config: QdrantConfig, timeout_s: float | None = None) -> None:
        super().__init__(config, timeout_s)
        if config.path is not None and not (config.path / "collection").is_dir():
            raise ConfigError(
                f"{config.where}: key 'path': {config.path} is not a Qdrant local storage "
                "folder (it has no collection/ inside)"
            )
        self._api_key = (
            env_value(config.common, "api_key_env", config.api_key_env)
            if config.api_key_env
            else None
        )
        self.embedder = load_embedder(config.embedder, config.embedder_options)
        self._client: AsyncQdrantClient | None = None

    def _connect(self) -> AsyncQdrantClient:
        # the Qdrant client only when the kind connects
        from qdrant_client import AsyncQdrantClient

        if self._client is None:
            if self.config.path is not None:
                self._client = AsyncQdrantClient(path=str(self.config.path))
            else:
                self._client = AsyncQdrantClient(
                    url=self.config.url, api_key=self._api_key, check_compatibility=False
                )
        return self._client

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = admit(self.target, question, limit, timeout_s, self.timeout_s)
        try:
            async with asyncio.timeout(deadline):
                client = self._connect()
                [vector] = await asyncio.to_thread(self.embedder.embed, [question])
                response = await client.query_points(
                    self.config.collection,
                    query=vector.tolist(),
                    using=self.config.vector or None,
                    limit=limit,
                    with_payload=[self.config.id_key],
                )
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e
        except RetrieverError:
            raise
        except Exception as e:
            raise self._failure(e) from e
        return self._ranking(response.points, limit)

    def _failure(self, error: Exception) -> RetrieverError:
        # the Qdrant client's errors only when a call fails
        from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

        message = " ".join(str(error).split())
        if isinstance(error, UnexpectedResponse):
            if error.status_code in (401, 403):
                return RetrieverUnauthenticated(self.target, message)
            if error.status_code is not None and error.status_code >= 500:
                return RetrieverUnavailable(self.target, message)
            return RetrieverRejected(self.target, message, str(error.status_code))
        source = error.source if isinstance(error, ResponseHandlingException) else error
        if _malformed(source):
            return RetrieverContractError(self.target, f"the answer is not Qdrant's: {message}")
        if isinstance(error, ResponseHandlingException | OSError):
            return RetrieverUnavailable(self.target, message)
        # The embedded mode raises ValueError for a missing collection or vector name.
        return RetrieverRejected(self.target, message or type(error).__name__)

    def _ranking(self, points: list[Any], limit: int) -> Ranking:
        key = self.config.id_key
        ids: list[str] = []
        scores: list[float] = []
        for rank, point in enumerate(points, start=1):
            payload = point.payload or {}
            if key not in payload:
                raise RetrieverContractError(
                    self.target,
                    f"result {rank} (point {point.id}) has no payload key {key!r}; "
                    f"payload keys: {sorted(payload)}",
                )
            value = payload[key]
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise RetrieverContractError(
                    self.target, f"result {rank}: payload {key!r} is {value!r}, not an id"
                )
            ids.append(str(value))
            scores.append(float(point.score))
        return self.checked(Ranking(tuple(ids), tuple(scores)), limit)

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()


def _malformed(error: BaseException) -> bool:
    """An answer that is not JSON, not the shape qdrant-client parses, or has no result
    (qdrant-client asserts on that): what the server sent, not how it was reached."""
    # pydantic (the Qdrant client's) only when an answer is malformed
    from pydantic import ValidationError

    return isinstance(error, json.JSONDecodeError | ValidationError) or (
        isinstance(error, AssertionError) and "returned None" in str(error)
    )
