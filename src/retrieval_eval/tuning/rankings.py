"""Each member's ranking of each question, asked once and kept.

The grid is scored on these cached rankings, so trying a hundred settings costs no more
retrieval calls than trying one. A member call that fails stops the tuning (a ranking
missing for one member would tilt every comparison): ``RetrieverError`` naming the
member and the question.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from retrieval_eval.errors import RetrieverError
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.retrievers.asked import ASKED_QUESTION_ID
from retrieval_eval.retrievers.documents import distinct_scored
from retrieval_eval.retrievers.fusion.methods import MemberRanking
from retrieval_eval.retrievers.fusion.retriever import FusedRetriever
from retrieval_eval.retrievers.protocol import Ranking


@dataclass(frozen=True, slots=True)
class CachedRankings:
    """``rankings[q][m]``: member ``m``'s collapsed ranking of question ``q``."""

    members: tuple[str, ...]
    rankings: tuple[tuple[MemberRanking, ...], ...]
    #: Retrieval calls made, per member (one per question when all went well).
    calls: tuple[int, ...]


async def collect_rankings(
    qs: GoldenQuestionSet,
    fused: FusedRetriever,
    *,
    limit: int,
    concurrency: int,
    timeout_s: float,
) -> CachedRankings:
    """Ask every member of ``fused`` once per question (``concurrency`` calls in flight
    per member), each collapsed with the member's own separator."""
    descriptions = await fused.member_descriptions(timeout_s=timeout_s)
    members = fused.members
    table: list[list[MemberRanking]] = [[()] * len(members) for _ in qs.questions]
    calls = [0] * len(members)

    async def pool(m: int) -> None:
        jobs = iter(range(len(qs.questions)))
        separator = descriptions[m].chunk_separator

        async def work() -> None:
            for q in jobs:
                calls[m] += 1
                items = await _ask(
                    fused, m, qs.questions[q].question, qs.questions[q].id, limit, timeout_s
                )
                table[q][m] = distinct_scored(items, separator)

        await asyncio.gather(*(work() for _ in range(min(concurrency, len(qs.questions)))))

    await asyncio.gather(*(pool(m) for m in range(len(members))))
    return CachedRankings(
        tuple(m.name for m in members), tuple(tuple(row) for row in table), tuple(calls)
    )


async def _ask(
    fused: FusedRetriever, m: int, question: str, question_id: str, limit: int, timeout_s: float
) -> Ranking:
    member = fused.members[m]
    ASKED_QUESTION_ID.set(question_id)  # in this worker's task, as the coordinator does
    try:
        return await fused.ask_member(member, question, limit, timeout_s)
    except RetrieverError as e:
        where = f"question {question_id}: {e.details}"
        raise type(e)(fused.target, where, e.code) from e
