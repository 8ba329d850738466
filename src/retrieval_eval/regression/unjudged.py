"""Which lost hits rest on documents the labels never judged.

A question that lost its hit at k now ranks other documents in its top k. When one of
them is unjudged, judging it relevant could turn the loss around: the loss may be the
labels' blind spot (pool bias), not the retriever's. When every one of them is judged
(grade below the relevance level, 0 = judged not relevant), the loss is a loss whatever
anyone judges next.

This module only *describes* losses. It never softens the gate by itself: an unjudged
loss still counts as a loss. ``incomparable`` is the one place a caller may turn "every
loss rests on unjudged documents" into a verdict that is not ``pass`` either.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from retrieval_eval.regression.verdict_records import Flip, FlipDirection


@dataclass(frozen=True, slots=True)
class JudgedLoss:
    """One lost hit at ``k`` and the documents now in the target's place (current top k)."""

    question_id: str
    k: int
    unjudged_document_ids: tuple[str, ...]
    not_relevant_document_ids: tuple[str, ...]

    @property
    def rests_on_unjudged(self) -> bool:
        return bool(self.unjudged_document_ids)


@dataclass(frozen=True, slots=True)
class UnjudgedLosses:
    """The losses at one k, classified, and the wins they are netted against."""

    k: int
    losses: tuple[JudgedLoss, ...]
    wins: int

    @property
    def unjudged(self) -> tuple[JudgedLoss, ...]:
        return tuple(loss for loss in self.losses if loss.rests_on_unjudged)

    @property
    def question_ids(self) -> tuple[str, ...]:
        """The ids of the questions whose loss rests on unjudged documents (JSON's
        ``unjudged_losses``)."""
        return tuple(loss.question_id for loss in self.unjudged)

    @property
    def net_loss(self) -> int:
        return len(self.losses) - self.wins

    @property
    def turnable(self) -> int:
        """The largest part of the net loss that judging could still turn around: at most
        one per loss resting on unjudged documents, never more than the net loss."""
        return max(0, min(self.net_loss, len(self.unjudged)))

    @property
    def all_unjudged(self) -> bool:
        """True only when there are losses and every one rests on unjudged documents."""
        return bool(self.losses) and all(loss.rests_on_unjudged for loss in self.losses)

    def judge_command(self, set_path: str, run_ids: Iterable[str]) -> str:
        """The command that judges exactly the unjudged documents of these losses."""
        runs = " ".join(shlex.quote(r) for r in run_ids)
        return f"reval sets judge {shlex.quote(set_path)} --pool-from {runs} --depth {self.k}"

    def line(self, set_path: str, run_ids: Iterable[str]) -> str:
        """The verdict's one line about unjudged losses."""
        if not self.unjudged:
            return f"unjudged: no loss at k={self.k} rests on unjudged documents"
        return (
            f"unjudged: {len(self.unjudged)} of {len(self.losses)} losses at k={self.k} rest "
            f"on unjudged documents; judging could turn around a net loss of at most "
            f"{self.turnable}: {self.judge_command(set_path, run_ids)}"
        )


def classify_losses(
    flips: Iterable[Flip], grades: Mapping[str, Mapping[str, int]], k: int
) -> UnjudgedLosses:
    """Classify the hit->miss flips at ``k`` against ``grades`` (question id -> document
    id -> grade, from the *current* set). A document missing from a question's grades is
    unjudged; any other non-target in the top k is judged not relevant (graded below the
    set's relevance level)."""
    losses: list[JudgedLoss] = []
    wins = 0
    for flip in flips:
        if flip.k != k:
            continue
        if flip.direction is FlipDirection.MISS_TO_HIT:
            wins += 1
            continue
        judged = grades.get(flip.question_id, {})
        expected = set(flip.expected_document_ids)
        top = [d for d in dict.fromkeys(flip.current_ranking[:k]) if d not in expected]
        unjudged = tuple(d for d in top if d not in judged)
        not_relevant = tuple(d for d in top if d in judged)
        losses.append(JudgedLoss(flip.question_id, k, unjudged, not_relevant))
    return UnjudgedLosses(k, tuple(losses), wins)


def incomparable(losses: UnjudgedLosses, *, allow: bool) -> bool:
    """Whether a failing comparison may be called ``incomparable`` instead of a regression:
    only when the team asked for it and *every* loss rests on unjudged documents. A loss
    on judged documents always keeps the regression (and nothing here ever gives pass)."""
    return allow and losses.all_unjudged
