"""Any OpenAI-compatible ``/v1/embeddings`` endpoint: vLLM, Ollama, Text Embeddings
Inference, infinity, hosted APIs.

``POST {url}/embeddings`` with ``{"model", "input": [...], "encoding_format": "float"}``;
the key (if any) is read from an environment variable, never stored. Texts go in batches;
a 429, a 5xx or a refused connection is retried a bounded number of times with exponential
backoff and jitter (``Retry-After`` honoured up to a cap); every call has a deadline,
retries included. Anything else,
and a malformed or mis-sized answer, is an ``EmbeddingError``: one line naming the
endpoint and the cause. The HTTP calls are reval's ``retrievers.http_json``, shared with
the HTTP rerank scorer.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from retrieval_eval.plugin_api import (
    ConfigError,
    EmbedderIdentity,
    EmbeddingError,
    HttpCallError,
    RetryPolicy,
    normalise,
    post_json,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

KIND = "openai"
OPTIONS = ("url", "model", "api_key_env", "dimensions", "batch_size", "timeout", "retries")


@dataclass(frozen=True, slots=True)
class EndpointSettings:
    url: str
    model: str
    dimensions: int
    api_key_env: str | None = None
    batch_size: int = 64
    timeout_s: float = 30.0
    #: Attempts after the first, for 429 / 5xx / connection refused.
    retries: int = 4
    backoff_s: float = 0.25

    @property
    def endpoint(self) -> str:
        return self.url.rstrip("/") + "/embeddings"


class OpenAIEmbedder:
    """``Embedder`` over an OpenAI-compatible endpoint (``dimensions`` must be known: the
    answer is checked against it, and an index records it)."""

    def __init__(
        self,
        settings: EndpointSettings,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.settings = settings
        self._key = _read_key(settings.api_key_env)
        self._sleep = sleep
        self._identity = EmbedderIdentity(KIND, settings.model, "", settings.dimensions)

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        size = self.settings.batch_size
        rows: list[list[float]] = []
        for start in range(0, len(texts), size):
            rows += self._batch(list(texts[start : start + size]))
        if not rows:
            return np.zeros((0, self.settings.dimensions), dtype=np.float32)
        return normalise(np.asarray(rows, dtype=np.float32))

    def _batch(self, texts: list[str]) -> list[list[float]]:
        settings = self.settings
        body = {"model": settings.model, "input": texts, "encoding_format": "float"}
        policy = RetryPolicy(settings.timeout_s, settings.retries, settings.backoff_s)
        try:
            answer = post_json(
                settings.endpoint, body, key=self._key, policy=policy, sleep=self._sleep
            )
        except HttpCallError as e:
            hint = _auth_hint(e.status, settings.api_key_env)
            raise EmbeddingError(f"embedding endpoint {settings.endpoint}: {e}{hint}") from e
        return _vectors(answer, len(texts), settings)


def _vectors(answer: Any, count: int, settings: EndpointSettings) -> list[list[float]]:
    where = settings.endpoint
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        got = len(data) if isinstance(data, list) else "no 'data' list"
        raise EmbeddingError(f"embedding endpoint {where}: asked for {count} vectors, got {got}")
    rows: list[list[float]] = [[] for _ in range(count)]
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or not isinstance(vector, list):
            raise EmbeddingError(f"embedding endpoint {where}: malformed item {position}")
        if len(vector) != settings.dimensions:
            raise EmbeddingError(
                f"embedding endpoint {where}: model {settings.model!r} returned "
                f"{len(vector)} dimensions, expected {settings.dimensions}"
            )
        if not all(isinstance(x, int | float) and math.isfinite(x) for x in vector):
            raise EmbeddingError(f"embedding endpoint {where}: item {position} is not numbers")
        rows[index] = vector
    return rows


def _auth_hint(status: int | None, key_env: str | None) -> str:
    if status not in (401, 403):
        return ""
    return (
        f"; check the key in ${key_env}" if key_env else "; the endpoint wants a key: api_key_env"
    )


def _read_key(env: str | None) -> str | None:
    if env is None:
        return None
    key = os.environ.get(env, "")
    if not key:
        raise ConfigError(f"openai embedder: environment variable {env} (api_key_env) is not set")
    return key


def settings_from(options: Mapping[str, Any]) -> EndpointSettings:
    """Checked settings from an index's manifest, a CLI or a reval.toml table."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ConfigError(f"openai embedder: unknown option(s) {unknown}; it takes {OPTIONS}")
    url, model = options.get("url"), options.get("model")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ConfigError(f"openai embedder: 'url' must be an http(s) URL, got {url!r}")
    if not isinstance(model, str) or not model:
        raise ConfigError(f"openai embedder: 'model' must be a model name, got {model!r}")
    dims = options.get("dimensions")
    if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
        raise ConfigError(f"openai embedder: 'dimensions' must be a positive integer, got {dims!r}")
    numbers = {k: options[k] for k in ("batch_size", "timeout", "retries") if k in options}
    for key, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ConfigError(f"openai embedder: {key!r} must be a number >= 0, got {value!r}")
    key_env = options.get("api_key_env")
    if key_env is not None and (not isinstance(key_env, str) or not key_env):
        raise ConfigError(
            f"openai embedder: 'api_key_env' must be a variable name, got {key_env!r}"
        )
    return EndpointSettings(
        url=url,
        model=model,
        dimensions=dims,
        api_key_env=key_env,
        batch_size=max(1, int(numbers.get("batch_size", 64))),
        timeout_s=float(numbers.get("timeout", 30.0)) or 30.0,
        retries=int(numbers.get("retries", 4)),
    )


def create(options: Mapping[str, Any]) -> OpenAIEmbedder:
    """Entry point of ``retrieval_eval.embedders``: ``{"url": "http://host:8080/v1",
    "model": "...", "dimensions": 768, "api_key_env": "EMBED_KEY"}``."""
    return OpenAIEmbedder(settings_from(options))
