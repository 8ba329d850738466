"""Recording a judgement on one question: decisions, who and when, and the history.

A judgement decides candidates (relevant or not) or declares that nothing in the corpus
answers the question. Each candidate it decides records its decider as ``source:
human:<name>`` (replacing a model's label there; the model's grade and reason stay in the
history). It updates the question's labels (``expected_document_ids`` become
its relevant candidates, plus any ids the file listed that are not candidates), its form
and hard class when given, and its ``judgments``: each decided candidate's grade, 0 for
"not relevant" (so a run can tell a document judged wrong from one nobody looked at) and for
a relevant one the grade the judge gave (sets that declare a ``grade_scale``) or the set's
relevance level; the digest of each decided document's text (``questions.digests``: the
text the judge was shown, else the drafted one); and it appends itself to the question's
``history``: nothing a judge decided is ever dropped, even when two judges save the same
question at once (the later save is current, both are in the history). The question is
``judged`` once every candidate has a decision and it has a target or is declared
unanswerable (rejecting every candidate is not the same as "nothing answers it"), else it
stays ``needs-review``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.document import (
    find_question,
    trailing_comments_kept,
    update_document,
)
from retrieval_eval.labelling.judge_name import default_judge
from retrieval_eval.questions.digests import DIGESTS_KEY
from retrieval_eval.questions.judgments import JUDGMENTS_KEY, header_level
from retrieval_eval.questions.labelling import (
    HUMAN_PREFIX,
    LABELLING_KEY,
    MODEL_PREFIX,
    JudgementState,
)
from retrieval_eval.records.outcome import Form


@dataclass(frozen=True, slots=True)
class Judgement:
    question_id: str
    relevant: frozenset[str] = frozenset()
    not_relevant: frozenset[str] = frozenset()
    nothing_answers: bool = False
    form: Form | None = None
    hard_class: str | None = None
    #: Every candidate not named relevant is not relevant (what the judging page sends).
    complete: bool = False
    #: Grades of relevant documents (a set with a grade scale); others get the set's level.
    grades: Mapping[str, int] = field(default_factory=dict)
    #: Document id -> digest of the text the judge was shown (``corpus.digest``); a
    #: decided document without one keeps its candidate's drafted ``document_digest``.
    digests: Mapping[str, str] = field(default_factory=dict)
    judge: str = field(default_factory=default_judge)
    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def check(self) -> None:
        if not self.judge.strip():
            raise InputError("a judgement needs a judge name (--judge or $REVAL_JUDGE)")
        both = self.relevant & self.not_relevant
        if both:
            raise InputError(f"{sorted(both)} marked both relevant and not relevant")
        ungraded = set(self.grades) - self.relevant
        if ungraded:
            raise InputError(f"grades for documents not marked relevant: {sorted(ungraded)}")
        if self.nothing_answers and self.relevant:
            raise InputError(
                f"question {self.question_id!r}: 'nothing answers it' with relevant "
                f"documents {sorted(self.relevant)}"
            )


@dataclass(frozen=True, slots=True)
class SaveResult:
    question_id: str
    state: JudgementState
    #: The file's version after the save.
    version: str
    #: Someone else judged this question after the saving page loaded it (both kept).
    concurrent: bool


def save_judgement(
    path: Path, judgement: Judgement, *, seen_history: int | None = None
) -> SaveResult:
    """Apply ``judgement`` to its question in the newest file, under the file lock.

    ``seen_history``: how many history entries the judge's copy had; a larger count in
    the file means someone judged meanwhile (reported in ``concurrent``, nothing lost).
    """
    judgement.check()

    def change(document: Any) -> tuple[JudgementState, bool]:
        question = find_question(document, judgement.question_id)
        before = len(question.get(LABELLING_KEY, {}).get("history", []) or [])
        with trailing_comments_kept(question):
            state = apply_judgement(question, judgement, header_level(document))
        return state, seen_history is not None and before > seen_history

    (state, concurrent), version = update_document(path, change)
    return SaveResult(judgement.question_id, state, version, concurrent)


def apply_judgement(question: Any, judgement: Judgement, level: int = 1) -> JudgementState:
    """Change one question mapping (round-trip YAML) in place; returns its new state.
    ``level`` is the set's relevance level: a relevant grade below it is refused."""
    low = {d: g for d, g in judgement.grades.items() if g < level}
    if low:
        raise InputError(f"relevant documents graded below the relevance level {level}: {low}")
    labelling = question.get(LABELLING_KEY)
    if labelling is None:
        labelling = CommentedMap([("state", JudgementState.UNJUDGED.value), ("candidates", [])])
        question[LABELLING_KEY] = labelling
    candidates = labelling.get("candidates") or []
    known = {c["document_id"] for c in candidates}
    unknown = (judgement.relevant | judgement.not_relevant) - known
    if unknown:
        raise InputError(f"question {judgement.question_id!r}: not candidates: {sorted(unknown)}")
    for candidate in candidates:
        doc = candidate["document_id"]
        if doc in judgement.relevant and not judgement.nothing_answers:
            candidate["relevant"] = True
        elif judgement.nothing_answers or judgement.complete or doc in judgement.not_relevant:
            candidate["relevant"] = False
        else:
            continue
        _decided_by(candidate, judgement.judge)
    _set_labels(question, candidates, judgement)
    _set_judgments(question, candidates, judgement, level)
    _set_digests(question, candidates, judgement)
    decided = all(c.get("relevant") is not None for c in candidates)
    answered = judgement.nothing_answers or bool(question["expected_document_ids"])
    state = JudgementState.JUDGED if decided and answered else JudgementState.NEEDS_REVIEW
    labelling["state"] = state.value
    labelling["nothing_answers"] = judgement.nothing_answers
    labelling["judged_by"] = judgement.judge
    labelling["judged_at"] = judgement.at.isoformat(timespec="seconds")
    history = labelling.get("history")
    if history is None:
        history = labelling["history"] = CommentedSeq()
    history.append(_entry(judgement, candidates))
    return state


def _decided_by(candidate: Any, judge: str) -> None:
    """The candidate's decision is now a person's: ``source: human:<name>``. A model's
    one-line reason goes with its label; its grade and reason stay in the history."""
    source = str(candidate.get("source") or "")
    if source.startswith(MODEL_PREFIX):
        candidate.pop("reason", None)
    candidate["source"] = judge if judge.startswith(HUMAN_PREFIX) else HUMAN_PREFIX + judge


def _set_labels(question: Any, candidates: Iterable[Any], judgement: Judgement) -> None:
    pooled = [c["document_id"] for c in candidates]
    by_hand = [d for d in question.get("expected_document_ids") or [] if d not in set(pooled)]
    relevant = [c["document_id"] for c in candidates if c.get("relevant") is True]
    expected = CommentedSeq([] if judgement.nothing_answers else [*by_hand, *relevant])
    expected.fa.set_flow_style()
    question["expected_document_ids"] = expected
    if judgement.form is not None:
        question["form"] = judgement.form.value
    if judgement.hard_class is not None:
        question["hard_class"] = judgement.hard_class or None


def _set_judgments(
    question: Any, candidates: Iterable[Any], judgement: Judgement, level: int
) -> None:
    """Decided candidates' grades (0: not relevant); judgments of other documents stay."""
    before = question.get(JUDGMENTS_KEY) or {}
    judged = CommentedMap(before)
    for candidate in candidates:
        doc, relevant = candidate["document_id"], candidate.get("relevant")
        if relevant is False:
            judged[doc] = 0
        elif relevant is True:
            kept = before.get(doc)
            default = kept if isinstance(kept, int) and kept >= level else level
            judged[doc] = judgement.grades.get(doc, default)
    if judged:
        judged.fa.set_flow_style()
        question[JUDGMENTS_KEY] = judged


def _set_digests(question: Any, candidates: Iterable[Any], judgement: Judgement) -> None:
    """The digest of each document this judgement decided: the text it was decided on."""
    decided = judgement.relevant | judgement.not_relevant
    if judgement.complete or judgement.nothing_answers:
        decided = frozenset(c["document_id"] for c in candidates)
    digests = CommentedMap(question.get(DIGESTS_KEY) or {})
    for candidate in candidates:
        doc = candidate["document_id"]
        digest = judgement.digests.get(doc) or candidate.get("document_digest")
        if doc in decided and digest:
            digests[doc] = candidate["document_digest"] = digest  # the decision's text
    if digests:  # block style: a digest is 71 characters, two do not fit on a line
        question[DIGESTS_KEY] = digests


def _entry(judgement: Judgement, candidates: Iterable[Any]) -> CommentedMap:
    entry = CommentedMap()
    entry["by"] = judgement.judge
    entry["at"] = judgement.at.isoformat(timespec="seconds")
    rejected = judgement.not_relevant
    if judgement.complete:
        rejected = frozenset(c["document_id"] for c in candidates) - judgement.relevant
    for key, ids in (("relevant", judgement.relevant), ("not_relevant", rejected)):
        seq = CommentedSeq(sorted(ids))
        seq.fa.set_flow_style()
        entry[key] = seq
    if judgement.grades:
        grades = CommentedMap(sorted(judgement.grades.items()))
        grades.fa.set_flow_style()
        entry["grades"] = grades
    entry["nothing_answers"] = judgement.nothing_answers
    if judgement.form is not None:
        entry["form"] = judgement.form.value
    if judgement.hard_class is not None:
        entry["hard_class"] = judgement.hard_class
    entry.fa.set_flow_style()
    return entry
