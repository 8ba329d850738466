"""``[retrievers.NAME]`` entries that rerank another retriever's candidates.

Example::

    [retrievers.bm25-reranked]
    rerank = "bm25-local"        # the candidate retriever: a name, an address or a plugin
    depth = 50                   # candidates asked for (collapsed to documents)
    corpus = "corpus.jsonl"      # where the candidates' texts are (relative to reval.toml)
    scorer = "embedding"         # cosine similarity of an embedder's vectors ...
    embedder = "wordllama"       # ... an embedder plugin, with its options:
    dimensions = 256

    [retrievers.bm25-cross-encoded]
    rerank = "bm25-local"
    corpus = "corpus.jsonl"
    scorer = "http"              # a /rerank endpoint: Text Embeddings Inference or Cohere
    url = "http://127.0.0.1:8080/rerank"
    api = "tei"                  # or "cohere" (then 'model' names the model)
    api_key_env = "RERANK_KEY"
    timeout = 5.0                # seconds per call, candidate and scorer together

Every problem is a ``ConfigError`` naming the file, the entry and the key.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval_eval.errors import ConfigError

DEFAULT_DEPTH = 50
MAX_DEPTH = 1000
SCORERS = ("embedding", "http")
APIS = ("tei", "cohere")
COMMON_KEYS = ("rerank", "depth", "corpus", "scorer", "timeout")
#: Passed to the embedder plugin as its options (``embedder`` itself names the plugin).
EMBEDDING_KEYS = ("embedder", "dimensions", "url", "model", "api_key_env", "batch_size")
HTTP_KEYS = ("url", "api", "model", "api_key_env", "retries")


@dataclass(frozen=True, slots=True)
class RerankConfig:
    """One rerank entry of reval.toml; ``corpus`` is absolute."""

    name: str
    candidate: str
    corpus: Path
    source: Path
    scorer: str = "embedding"
    depth: int = DEFAULT_DEPTH
    timeout_s: float | None = None
    #: embedding: the embedder plugin's name; http: the endpoint's URL.
    embedder: str = "wordllama"
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.source} [retrievers.{self.name}]"

    def describe(self) -> str:
        """``depth 50 by embedding(wordllama) of bm25-local``."""
        by = self.embedder if self.scorer == "embedding" else self.options.get("url", "")
        return f"depth {self.depth} by {self.scorer}({by}) of {self.candidate}"


def parse_rerank(name: str, table: Mapping[str, Any], path: Path, where: str) -> RerankConfig:
    """The rerank entry ``table`` (it has a ``rerank`` key)."""
    scorer = table.get("scorer", "embedding")
    if scorer not in SCORERS:
        raise ConfigError(f"{where}: key 'scorer' must be one of {SCORERS}, got {scorer!r}")
    allowed = (*COMMON_KEYS, *(EMBEDDING_KEYS if scorer == "embedding" else HTTP_KEYS))
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; expected one of {allowed}"
            raise ConfigError(f"{where}: unknown key {key!r} in a {scorer} rerank{hint}")
    candidate = table["rerank"]
    if not isinstance(candidate, str) or not candidate.strip():
        raise ConfigError(f"{where}: key 'rerank' must name the candidate retriever")
    if candidate.strip() == name:
        raise ConfigError(f"{where}: key 'rerank': a retriever cannot rerank itself ({name!r})")
    depth = table.get("depth", DEFAULT_DEPTH)
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ConfigError(f"{where}: key 'depth' must be an integer from 1 to {MAX_DEPTH}")
    corpus = table.get("corpus")
    if not isinstance(corpus, str) or not corpus.strip():
        raise ConfigError(
            f"{where}: missing key 'corpus': the corpus file the candidates' texts come from"
        )
    timeout = table.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
    ):
        raise ConfigError(f"{where}: key 'timeout' must be a positive number of seconds")
    options = {k: v for k, v in table.items() if k not in COMMON_KEYS and k != "embedder"}
    embedder = table.get("embedder", "wordllama")
    if scorer == "http":
        url = table.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigError(f"{where}: key 'url' must be the http(s) URL of a /rerank endpoint")
        if table.get("api", "tei") not in APIS:
            raise ConfigError(f"{where}: key 'api' must be one of {APIS}, got {table['api']!r}")
        retries = table.get("retries", 4)
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise ConfigError(f"{where}: key 'retries' must be an integer from 0 to 10")
    elif not isinstance(embedder, str) or not embedder:
        raise ConfigError(f"{where}: key 'embedder' must name an embedder plugin")
    return RerankConfig(
        name=name,
        candidate=candidate.strip(),
        corpus=(path.parent / corpus.strip()).resolve(),
        source=path,
        scorer=scorer,
        depth=depth,
        timeout_s=float(timeout) if timeout is not None else None,
        embedder=embedder,
        options=options,
    )
