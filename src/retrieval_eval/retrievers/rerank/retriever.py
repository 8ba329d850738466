"""A reranked retriever: asks the candidate retriever, collapses to documents, rescores.

- The candidate is asked for ``depth`` results; they are collapsed to distinct documents
  with the candidate's own chunk-id separator (from its Describe), exactly as the scoring
  protocol does; the documents' texts come from the corpus; the scorer scores them all and
  the best ``limit`` are answered, best first (ties keep the candidate's order).
- The call's latency is the wall time of the whole: candidate and scorer.
- A failure of either part makes the question an error naming the part (never a silent
  fall-back to the candidate's order); a candidate document missing from the corpus too.
- ``describe`` names the stage, the depth, the scorer and the candidate's identity.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from retrieval_eval.errors import (
    RetrieverError,
    RetrieverInternal,
    RetrieverTimeout,
    RetrieverUnavailable,
)
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.documents import distinct_scored
from retrieval_eval.retrievers.protocol import AsyncRetriever, Ranking
from retrieval_eval.retrievers.rerank.scorers import Scorer, ScorerAnswerError, ScorerUnavailable

log = logging.getLogger(__name__)


class RerankRetriever:
    """``AsyncRetriever`` over a candidate retriever (owned and closed) and a scorer."""

    def __init__(
        self,
        name: str,
        candidate_name: str,
        candidate: AsyncRetriever,
        scorer: Scorer,
        texts: Mapping[str, str],
        *,
        depth: int = 50,
        corpus: str = "",
        timeout_s: float | None = None,
    ) -> None:
        self.name = self.target = name
        self.candidate_name, self.candidate = candidate_name, candidate
        self.scorer, self.texts, self.depth = scorer, texts, depth
        self.corpus, self.timeout_s = corpus, timeout_s
        self._description: RetrieverDescription | None = None
        self._lock = asyncio.Lock()

    @property
    def configured_timeout_s(self) -> float | None:
        return self.timeout_s

    async def candidate_description(self, timeout_s: float | None = None) -> RetrieverDescription:
        async with self._lock:
            if self._description is None:
                try:
                    self._description = await self.candidate.describe(timeout_s=timeout_s)
                except RetrieverError as e:
                    raise self._candidate_error(e) from e
            return self._description

    async def describe(self, *, timeout_s: float | None = None) -> RetrieverDescription:
        return describe_rerank(self, await self.candidate_description(timeout_s))

    async def retrieve(
        self, question: str, limit: int, *, timeout_s: float | None = None
    ) -> Ranking:
        deadline = timeout_s if timeout_s is not None else self.timeout_s
        try:
            async with asyncio.timeout(deadline):
                return await self._rerank(question, limit, deadline)
        except TimeoutError as e:
            raise RetrieverTimeout(
                self.target, f"no answer within {deadline:g} s", "DEADLINE_EXCEEDED"
            ) from e

    async def _rerank(self, question: str, limit: int, deadline: float | None) -> Ranking:
        described = await self.candidate_description(deadline)
        try:
            answer = await self.candidate.retrieve(question, self.depth, timeout_s=deadline)
        except RetrieverError as e:
            raise self._candidate_error(e) from e
        documents = [doc for doc, _ in distinct_scored(answer, described.chunk_separator)]
        if not documents:
            return Ranking((), (), (), answer.notes)
        missing = [doc for doc in documents if doc not in self.texts]
        if missing:
            raise RetrieverInternal(
                self.target,
                f"candidate {self.candidate_name} returned {missing[0]!r}, which is not in "
                f"the corpus {self.corpus}",
            )
        texts = [self.texts[doc] for doc in documents]
        try:
            scores = await asyncio.to_thread(self.scorer.score, question, documents, texts)
        except ScorerUnavailable as e:
            raise RetrieverUnavailable(self.target, f"scorer: {e}") from e
        except ScorerAnswerError as e:
            raise RetrieverInternal(self.target, f"scorer: {e}") from e
        order = sorted(range(len(documents)), key=lambda i: (-scores[i], i))[:limit]
        return Ranking(
            tuple([documents[i] for i in order]),
            tuple([scores[i] for i in order]),
            (),
            answer.notes,
        )

    def _candidate_error(self, error: RetrieverError) -> RetrieverError:
        """The candidate's error, re-addressed to the rerank and naming it; same kind."""
        return type(error)(
            self.target, f"candidate {self.candidate_name}: {error.details}", error.code
        )

    async def close(self) -> None:
        try:
            await self.candidate.close()
        except Exception:
            log.warning("closing rerank candidate %s failed", self.candidate_name, exc_info=True)

    async def __aenter__(self) -> RerankRetriever:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


def describe_rerank(
    retriever: RerankRetriever, candidate: RetrieverDescription
) -> RetrieverDescription:
    """The stage's identity: ``rerank(bm25-local)``, versioned by depth, scorer and the
    candidate's identity and version, so a new scorer or depth is a variant of one lineage."""
    stage = f"rerank depth={retriever.depth} by {retriever.scorer.label}"
    metadata = {
        "rerank.name": retriever.name,
        "rerank.stage": "rerank",
        "rerank.depth": str(retriever.depth),
        "rerank.scorer": retriever.scorer.label,
        "rerank.candidate": f"{retriever.candidate_name}: {candidate.identifier} "
        f"{candidate.version}".strip()
        + f" ({retriever.candidate.target})",
        "rerank.corpus": retriever.corpus,
    }
    for key in ("model_revision", "chunking", "pipeline", "chunk_separator"):
        if getattr(candidate, key):
            metadata[f"rerank.candidate.{key}"] = getattr(candidate, key)
    models = [m for m in (candidate.model_revision, retriever.scorer.model_revision) if m]
    return RetrieverDescription(
        identifier=f"rerank({retriever.candidate_name})",
        version=f"depth={retriever.depth} {retriever.scorer.label}; "
        f"{candidate.identifier}@{candidate.version or '-'}",
        corpus_revision=candidate.corpus_revision,
        model_revision=" + ".join(models),
        chunking=candidate.chunking,
        pipeline=f"{candidate.pipeline or candidate.identifier} -> {stage}",
        metadata=metadata,
    )
