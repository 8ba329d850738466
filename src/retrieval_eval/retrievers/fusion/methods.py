"""Fusion of several rankings into one (the definition; keep it exact).

Input: for each member, in member order, its results mapped to documents and collapsed
exactly as the scoring protocol does (``retrievers.documents``, with the member's own
chunk-id separator), so each member contributes a ranking of DISTINCT documents, rank 1
first, each with the score of its first occurrence.

- ``rrf`` (reciprocal rank fusion): ``score(d) = sum_i w_i / (k + rank_i(d))`` over the
  members that returned ``d``; ``k`` defaults to 60.
- ``combsum``: each member's scores are min-max normalised over its distinct documents,
  ``(s - min) / (max - min)``, or 1.0 for every document when ``max == min`` (one
  document, or all scores equal); ``score(d) = sum_i w_i * norm_i(d)``.
- ``combmnz``: ``combsum`` times the number of members that returned ``d``.
- Weights ``w_i`` default to 1. Sums are exact-rounded (``math.fsum``), so equal terms in a
  different order give equal scores.
- Ties on the fused score are broken by the better best rank (the smallest ``rank_i(d)``
  over members), then by member order (the first member in which ``d`` has that best
  rank). The fused ranking is cut to ``limit``.

``combsum`` and ``combmnz`` need a finite score on every result of every member; a
missing or non-finite score raises ``FusionScoreError`` (never a silent switch to ranks).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

DEFAULT_RRF_K = 60


class FusionMethod(StrEnum):
    RRF = "rrf"
    COMBSUM = "combsum"
    COMBMNZ = "combmnz"


@dataclass(frozen=True, slots=True)
class FusionParams:
    """How rankings are fused. ``weights`` is empty (all 1) or one per member."""

    method: FusionMethod = FusionMethod.RRF
    k: int = DEFAULT_RRF_K
    weights: tuple[float, ...] = ()

    def weight(self, member: int) -> float:
        return self.weights[member] if self.weights else 1.0

    def describe(self) -> str:
        """Canonical text of the parameters, e.g. ``rrf k=60 weights=1,2``."""
        parts = [self.method.value]
        if self.method is FusionMethod.RRF:
            parts.append(f"k={self.k}")
        if self.weights:
            parts.append("weights=" + ",".join(f"{w:g}" for w in self.weights))
        return " ".join(parts)


#: Plain reciprocal rank fusion: the usual default and the tuner's reference point.
PLAIN_RRF = FusionParams()

#: One member's collapsed ranking: (document id, score of its first occurrence), best first.
MemberRanking = Sequence[tuple[str, float | None]]


class FusionScoreError(ValueError):
    """A score-based method met a result without a usable score."""

    def __init__(self, member: int, document: str, score: float | None) -> None:
        self.member, self.document = member, document
        what = "no score" if score is None else f"score {score!r}"
        super().__init__(
            f"result {document!r} has {what}; combsum/combmnz need a finite score on every "
            "result (use method = 'rrf' for rankings without scores)"
        )


@dataclass(frozen=True, slots=True)
class FusedDocument:
    document_id: str
    score: float
    #: Smallest rank (from 1) over the members that returned it.
    best_rank: int
    #: Index of the first member in which it has ``best_rank``.
    best_member: int
    #: How many members returned it.
    members: int


def fuse(
    rankings: Sequence[MemberRanking], params: FusionParams, limit: int
) -> list[FusedDocument]:
    """The fused ranking of ``rankings`` (one per member, member order), cut to ``limit``."""
    if params.weights and len(params.weights) != len(rankings):
        raise ValueError(f"{len(params.weights)} weights for {len(rankings)} members")
    terms: dict[str, list[float]] = {}
    best: dict[str, tuple[int, int]] = {}
    for member, ranking in enumerate(rankings):
        contributions = _contributions(member, ranking, params)
        docs = [d for d, _ in ranking]
        for rank, (doc, value) in enumerate(zip(docs, contributions, strict=True), 1):
            terms.setdefault(doc, []).append(value)
            if doc not in best or rank < best[doc][0]:
                best[doc] = (rank, member)
    fused = []
    for doc, values in terms.items():
        score = math.fsum(values)
        if params.method is FusionMethod.COMBMNZ:
            score *= len(values)
        fused.append(FusedDocument(doc, score, best[doc][0], best[doc][1], len(values)))
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.best_member))
    return fused[:limit]


def _contributions(member: int, ranking: MemberRanking, params: FusionParams) -> list[float]:
    """Each document's term for this member, in the member's rank order."""
    weight = params.weight(member)
    if params.method is FusionMethod.RRF:
        return [weight / (params.k + rank) for rank in range(1, len(ranking) + 1)]
    return [weight * norm for norm in min_max(member, ranking)]


def min_max(member: int, ranking: MemberRanking) -> list[float]:
    """Min-max normalised scores of one member's ranking (1.0 each when all are equal)."""
    scores = []
    for doc, score in ranking:
        if score is None or not math.isfinite(score):
            raise FusionScoreError(member, doc, score)
        scores.append(score)
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [1.0] * len(scores)
    return [(s - low) / (high - low) for s in scores]
