"""Scorers of a rerank stage: how well each candidate document answers the question.

- ``EmbeddingScorer``: cosine similarity of an embedder's vectors (the dense plugin's
  WordLlama, an embeddings endpoint); document vectors are cached across questions.
- ``HttpScorer``: a ``/rerank`` endpoint, in the shape Text Embeddings Inference serves
  (``{"query", "texts"}`` -> ``[{"index", "score"}]``) or Cohere's (``{"model", "query",
  "documents"}`` -> ``{"results": [{"index", "relevance_score"}]}``).

A scorer returns one finite score per text, in the texts' order, or raises: a failed call
``ScorerUnavailable``, an answer that does not score every text once ``ScorerAnswerError``.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from retrieval_eval.errors import ConfigError, InfrastructureError
from retrieval_eval.retrievers.embedding import Embedder, EmbeddingError
from retrieval_eval.retrievers.http_json import HttpCallError, RetryPolicy, post_json


class ScorerUnavailable(InfrastructureError):
    """The scorer could not answer (endpoint down, refused, timed out, embedder failed)."""


class ScorerAnswerError(InfrastructureError):
    """The scorer answered, but not one finite score per candidate."""


class Scorer(Protocol):
    #: What scores, for Describe: ``embedding wordllama:l2_supercat_256@… dims=256``.
    label: str
    #: The scoring model's revision, if known (the embedder's), else "".
    model_revision: str

    def score(self, question: str, ids: Sequence[str], texts: Sequence[str]) -> list[float]: ...


class EmbeddingScorer:
    """Cosine similarity between the question's and each document's unit vector."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        identity = embedder.identity
        self.label = f"embedding {identity.label()}"
        self.model_revision = identity.label()
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()

    def score(self, question: str, ids: Sequence[str], texts: Sequence[str]) -> list[float]:
        try:
            query = self.embedder.embed([question])[0]
            with self._lock:
                todo = [i for i, doc in enumerate(ids) if doc not in self._cache]
            if todo:
                vectors = self.embedder.embed([texts[i] for i in todo])
                with self._lock:
                    for row, i in enumerate(todo):
                        self._cache[ids[i]] = vectors[row]
        except EmbeddingError as e:
            raise ScorerUnavailable(str(e)) from e
        with self._lock:
            return [float(self._cache[doc] @ query) for doc in ids]


class HttpScorer:
    """A ``/rerank`` endpoint (``api``: ``tei`` or ``cohere``)."""

    def __init__(
        self,
        url: str,
        *,
        api: str = "tei",
        model: str | None = None,
        api_key_env: str | None = None,
        policy: RetryPolicy | None = None,
    ) -> None:
        self.url, self.api, self.model = url, api, model
        self.policy = policy or RetryPolicy()
        self._key = _read_key(api_key_env)
        self.label = f"http {api} {url}" + (f" model={model}" if model else "")
        self.model_revision = f"{api}:{model or url}"

    def score(self, question: str, ids: Sequence[str], texts: Sequence[str]) -> list[float]:
        if self.api == "cohere":
            payload: dict[str, Any] = {"query": question, "documents": list(texts)}
            payload.update({"top_n": len(texts)} | ({"model": self.model} if self.model else {}))
        else:
            payload = {"query": question, "texts": list(texts), "raw_scores": False}
        try:
            answer = post_json(self.url, payload, key=self._key, policy=self.policy)
        except HttpCallError as e:
            raise ScorerUnavailable(f"rerank endpoint {self.url}: {e}") from e
        items = (
            answer.get("results") if self.api == "cohere" and isinstance(answer, dict) else answer
        )
        key = "relevance_score" if self.api == "cohere" else "score"
        return _scores(items, key, len(texts), self.url)


def _scores(items: Any, key: str, count: int, url: str) -> list[float]:
    """One score per text from ``[{"index": i, key: s}, ...]``; every index exactly once."""
    if not isinstance(items, list):
        raise ScorerAnswerError(f"rerank endpoint {url}: expected a list of scores")
    scores: list[float | None] = [None] * count
    for item in items:
        index = item.get("index") if isinstance(item, dict) else None
        score = item.get(key) if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < count or scores[index] is not None:
            raise ScorerAnswerError(f"rerank endpoint {url}: bad or repeated index {index!r}")
        if (
            isinstance(score, bool)
            or not isinstance(score, int | float)
            or not math.isfinite(score)
        ):
            raise ScorerAnswerError(f"rerank endpoint {url}: index {index}: {key} {score!r}")
        scores[index] = float(score)
    missing = [i for i, s in enumerate(scores) if s is None]
    if missing:
        raise ScorerAnswerError(
            f"rerank endpoint {url}: {len(missing)} of {count} texts got no score"
        )
    return [s for s in scores if s is not None]


def _read_key(env: str | None) -> str | None:
    if env is None:
        return None
    key = os.environ.get(env, "")
    if not key:
        raise ConfigError(f"rerank endpoint: environment variable {env} (api_key_env) is not set")
    return key
