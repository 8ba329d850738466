"""Open a rerank entry of reval.toml: read the corpus texts, make the scorer, open the
candidate retriever (a name, an address or a plugin; a fusion or another rerank too)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from retrieval_eval.corpus.reader import iter_documents
from retrieval_eval.errors import ConfigError, CorpusError
from retrieval_eval.retrievers.embedding import load_embedder
from retrieval_eval.retrievers.http_json import RetryPolicy
from retrieval_eval.retrievers.protocol import AsyncRetriever
from retrieval_eval.retrievers.rerank.config import RerankConfig
from retrieval_eval.retrievers.rerank.retriever import RerankRetriever
from retrieval_eval.retrievers.rerank.scorers import EmbeddingScorer, HttpScorer, Scorer


@dataclass(frozen=True, slots=True)
class RerankSpec:
    """A rerank entry from reval.toml: its candidate is resolved when it is opened."""

    display: str
    config: RerankConfig
    timeout_s: float | None = None
    token: str | None = None
    config_path: Path | None = None


def read_texts(corpus: Path) -> dict[str, str]:
    """Document id -> what a scorer reads (title, then text), from reval's corpus reader."""
    return {doc.id: doc.body for doc in iter_documents(corpus)}


def make_scorer(entry: RerankConfig) -> Scorer:
    options = dict(entry.options)
    if entry.scorer == "http":
        default = RetryPolicy()
        policy = RetryPolicy(
            timeout_s=entry.timeout_s or default.timeout_s,
            retries=int(options.get("retries", default.retries)),
        )
        return HttpScorer(
            str(options["url"]),
            api=str(options.get("api", "tei")),
            model=options.get("model"),
            api_key_env=options.get("api_key_env"),
            policy=policy,
        )

    return EmbeddingScorer(load_embedder(entry.embedder, options))


def open_rerank(
    spec: RerankSpec,
    open_candidate: Callable[[tuple[str, ...]], AsyncRetriever],
    chain: tuple[str, ...] = (),
) -> RerankRetriever:
    """The reranked retriever of ``spec``; its candidate is opened last (nothing to close
    when the corpus or the scorer fails), by ``open_candidate`` given the chain of stages
    opened so far (the resolver's, which knows every kind of retriever)."""
    entry = spec.config
    try:
        texts = read_texts(entry.corpus)
    except CorpusError as e:
        raise ConfigError(f"{entry.where}: key 'corpus': {e}") from e
    scorer = make_scorer(entry)
    candidate = open_candidate((*chain, entry.name))
    return RerankRetriever(
        spec.display, entry.candidate, candidate, scorer, texts,
        depth=entry.depth, corpus=str(entry.corpus), timeout_s=spec.timeout_s,
    )  # fmt: skip


def rerank_detail(entry: RerankConfig) -> str:
    """For ``reval retrievers list``: ``depth 50 by embedding(wordllama) of bm25-local``."""
    return entry.describe()


__all__ = [
    "RerankSpec",
    "make_scorer",
    "open_rerank",
    "read_texts",
    "rerank_detail",
]
