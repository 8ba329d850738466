"""Which lost hits rest on documents the labels never judged.

A question that lost its hit at k now ranks other documents in its top k. When one of
them is unjudged, judging it relevant could turn the loss around: the loss may be the
labels' blind spot (pool bias), not the retriever's. When every one of them is judged
(grade below the relevance level, 0 = judged not relevant), the loss is a loss whatever
anyone judges next.

The verdict carries the classification (``UnjudgedSummary``) and one line in every format
(``unjudged_line``). It never softens the gate by itself: an unjudged loss still counts as
a loss. Only ``weigh``, when the team asked (``unjudged_incomparable``), turns a regression
whose every loss rests on unjudged documents (``incomparable``) into INCOMPARABLE: still
failing, never ``pass``, never a baseline. ``SetJudgments`` is what of a set's labels the
judging needs once the set itself is freed.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.regression.verdict_records import (
    RULE_MISSES,
    Flip,
    FlipDirection,
    UnjudgedAtK,
    UnjudgedSummary,
    Verdict,
    VerdictKind,
)


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
        """The ids of the questions whose loss rests on unjudged documents."""
        return tuple(loss.question_id for loss in self.unjudged)

    def record(self) -> UnjudgedAtK:
        """The counts a verdict keeps (and the store with it)."""
        return UnjudgedAtK(self.k, len(self.losses), self.wins, self.question_ids)


def classify_losses(
    flips: Iterable[Flip], judged: Mapping[str, Collection[str]], k: int
) -> UnjudgedLosses:
    """Classify the hit->miss flips at ``k`` against ``judged`` (question id -> the
    documents it judged, e.g. its grades, from the *current* set; its targets may be left
    out: they are the flip's). A non-target of the top k missing from a question's
    judgments is unjudged; any other is judged not relevant (graded below the set's
    relevance level)."""
    losses: list[JudgedLoss] = []
    wins = 0
    for flip in flips:
        if flip.k != k:
            continue
        if flip.direction is FlipDirection.MISS_TO_HIT:
            wins += 1
            continue
        decided = judged.get(flip.question_id, ())
        expected = set(flip.expected_document_ids)
        top = [d for d in dict.fromkeys(flip.current_ranking[:k]) if d not in expected]
        unjudged = tuple(d for d in top if d not in decided)
        not_relevant = tuple(d for d in top if d in decided)
        losses.append(JudgedLoss(flip.question_id, k, unjudged, not_relevant))
    return UnjudgedLosses(k, tuple(losses), wins)


@dataclass(frozen=True, slots=True)
class SetJudgments:
    """What a verdict needs of a set's labels once the set itself is gone: for each
    question, the documents judged below the relevance level (a target is the flip's own,
    any other document is unjudged). Only questions that judged such a document are kept,
    so a set of plain lists of expected ids carries nothing."""

    set_name: str
    fingerprint: str
    #: The set file (or provider) the labels came from: the judging command writes it.
    source: str
    relevance_level: int
    not_relevant: Mapping[str, frozenset[str]]

    @classmethod
    def of(cls, question_set: GoldenQuestionSet) -> SetJudgments:
        below: dict[str, frozenset[str]] = {}
        if question_set.graded:
            for q in question_set.questions:
                expected = set(q.expected_document_ids)
                docs = frozenset(d for d, _ in q.judgments if d not in expected)
                if docs:
                    below[q.id] = docs
        return cls(question_set.name, question_set.fingerprint,
                   question_set.source or question_set.name, question_set.relevance_level,
                   below)  # fmt: skip

    def covers(self, set_name: str, fingerprint: str) -> bool:
        """Whether these are the labels a run of ``set_name`` at ``fingerprint`` was
        scored against."""
        return (self.set_name, self.fingerprint) == (set_name, fingerprint)


def summarize(flips: tuple[Flip, ...], judged: SetJudgments) -> UnjudgedSummary:
    """Every k that has flips, its losses classified against ``judged``."""
    ks = tuple(dict.fromkeys(f.k for f in flips))
    by_k = tuple(classify_losses(flips, judged.not_relevant, k).record() for k in ks)
    return UnjudgedSummary(judged.source, judged.relevance_level, by_k)


def weigh(verdict: Verdict, judged: SetJudgments | None, *, allow_incomparable: bool) -> Verdict:
    """``verdict`` with its lost hits classified (pass and regression only: the others
    compared nothing), and INCOMPARABLE instead of REGRESSION when the team allowed it
    and ``incomparable`` holds."""
    if judged is None or verdict.kind not in (VerdictKind.PASS, VerdictKind.REGRESSION):
        return verdict
    summary = summarize(verdict.flips, judged)
    if not (allow_incomparable and incomparable(verdict, summary)):
        return replace(verdict, unjudged=summary)
    reason = (f"every lost hit rests on unjudged documents ({len(summary.question_ids)} "
              "questions) and unjudged_incomparable is set: judge them, then rescore both "
              "runs, before comparing")  # fmt: skip
    return replace(verdict, kind=VerdictKind.INCOMPARABLE, reasons=(reason, *verdict.reasons),
                   unjudged=replace(summary, decided=True))  # fmt: skip


def incomparable(verdict: Verdict, summary: UnjudgedSummary) -> bool:
    """Whether a regression may be called INCOMPARABLE: every lost hit, at every k,
    rests on unjudged documents, and nothing but those hits failed it. A loss on judged
    documents, a latency or drift regression, or one decided with errored questions
    counted as misses (losses no document explains) keeps the regression; nothing here
    ever gives pass."""
    if verdict.kind is not VerdictKind.REGRESSION or verdict.rule == RULE_MISSES:
        return False
    rates = ("overall", "form:", "hard_class:")
    if any(d.regressed and not d.group.startswith(rates) for d in verdict.deltas):
        return False
    lost = [at for at in summary.by_k if at.losses]
    return bool(lost) and all(len(at.question_ids) == at.losses for at in lost)


def judge_command(summary: UnjudgedSummary, run_ids: Iterable[str]) -> str:
    """The command that judges the unjudged documents of these losses: the current top
    k of the runs (the deepest k with one), questions that flipped between them first."""
    depth = max((at.k for at in summary.by_k if at.question_ids), default=1)
    runs = "".join(f" --pool-from {shlex.quote(r)}" for r in run_ids)
    return f"reval sets judge {shlex.quote(summary.set_source)} --corpus FILE{runs} --depth {depth}"


def unjudged_line(verdict: Verdict, run_id: str | None) -> str | None:
    """The verdict's one line about its lost hits (None: no loss, or the labels were not
    at hand); ``run_id`` is the judged run's (RUN while unsaved)."""
    summary = verdict.unjudged
    if summary is None or not summary.losses:
        return None
    lost = [at for at in summary.by_k if at.losses]
    if not summary.question_ids:
        counts = ", ".join(f"{at.losses} at top-{at.k}" for at in lost)
        return f"unjudged: no lost hit rests on unjudged documents ({counts}, all on judged ones)"
    counts = ", ".join(f"{len(at.question_ids)} of {at.losses} at top-{at.k}" for at in lost)
    turnable = ", ".join(f"{at.turnable} at top-{at.k}" for at in lost)
    command = judge_command(summary, judged_runs(verdict, run_id))
    return (f"unjudged: lost hits resting on unjudged documents: {counts}; judging could turn "
            f"around a net loss of at most {turnable}: {command}")  # fmt: skip


def judged_runs(verdict: Verdict, run_id: str | None) -> tuple[str, ...]:
    """The runs whose rankings the judging command pools: the judged run (RUN while
    unsaved) and its baseline, so the questions that flipped between them come first."""
    return (run_id or "RUN", *([verdict.baseline_run_id] if verdict.baseline_run_id else []))
