"""Labels against the corpus they were judged on: has each judged document's text changed?

Every label (a judged document of a question: an expected one, or one judged not
relevant) whose document digest the set records is in exactly one state:

1. ``unchanged``: the corpus has the id, and its text has the recorded digest.
2. ``changed``: the corpus has the id, with other text: the judgment is on text the corpus
   no longer holds (judge it again).
3. ``moved``: the id is gone, and exactly one document of the corpus has the recorded
   digest, under an id the question does not label yet: the same text, renamed (a
   re-import, a new id scheme). ``sets lint --fix-moved`` relabels it.
4. ``gone``: the id is gone and its text is nowhere, or under several ids (which one is
   the judged document cannot be told), or under one the question already labels.

A label without a recorded digest is ``unrecorded``: counted, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.questions.corpus import CorpusDocument
from retrieval_eval.questions.model import GoldenQuestion


class LabelState(StrEnum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    MOVED = "moved"
    GONE = "gone"


@dataclass(frozen=True, slots=True)
class LabelDrift:
    question_id: str
    document_id: str
    grade: int
    state: LabelState
    #: The id the judged text is under now (``moved`` only).
    moved_to: str | None = None

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "question_id": self.question_id,
            "document_id": self.document_id,
            "grade": self.grade,
            "state": self.state.value,
        }
        if self.moved_to is not None:
            record["moved_to"] = self.moved_to
        return record


@dataclass(frozen=True, slots=True)
class DriftReport:
    #: Every label with a recorded digest, in set order.
    labels: tuple[LabelDrift, ...]
    #: Labels whose set records no digest.
    unrecorded: int

    def counts(self) -> dict[str, int]:
        """Labels per state (every state, in ``LabelState`` order), and ``unrecorded``."""
        counts = dict.fromkeys((s.value for s in LabelState), 0)
        for label in self.labels:
            counts[label.state.value] += 1
        return {**counts, "unrecorded": self.unrecorded}

    @property
    def drifted(self) -> tuple[LabelDrift, ...]:
        """The labels whose judged text is not where they point (all but ``unchanged``)."""
        return tuple(d for d in self.labels if d.state is not LabelState.UNCHANGED)

    def moved(self) -> dict[str, dict[str, str]]:
        """question id -> old id -> new id, for every ``moved`` label."""
        fixes: dict[str, dict[str, str]] = {}
        for d in self.labels:
            if d.state is LabelState.MOVED and d.moved_to is not None:
                fixes.setdefault(d.question_id, {})[d.document_id] = d.moved_to
        return fixes

    def to_dict(self) -> dict[str, Any]:
        return {**self.counts(), "labels": [d.to_dict() for d in self.drifted]}


def corpus_digests(documents: Iterable[CorpusDocument]) -> dict[str, str]:
    """Document id -> digest of every document (``corpus.digest``)."""
    return {d.id: document_digest(d.title, d.text) for d in documents}


def label_drift(
    questions: Sequence[GoldenQuestion],
    recorded: Mapping[str, Mapping[str, str]],
    corpus: Mapping[str, str],
) -> DriftReport:
    """The state of every label of ``questions`` (module docstring); ``recorded`` is the
    set's question id -> document id -> digest, ``corpus`` id -> digest."""
    gone_digests = {
        digest
        for q in questions
        for doc, digest in recorded.get(q.id, {}).items()
        if doc not in corpus
    }
    holders: dict[str, list[str]] = {}
    if gone_digests:
        for doc, digest in corpus.items():
            if digest in gone_digests:
                holders.setdefault(digest, []).append(doc)
    labels: list[LabelDrift] = []
    unrecorded = 0
    for q in questions:
        digests = recorded.get(q.id, {})
        grades = q.grades
        for doc, grade in grades.items():
            judged_on = digests.get(doc)
            if judged_on is None:
                unrecorded += 1
                continue
            labels.append(_state(q.id, doc, grade, judged_on, corpus, holders, grades))
    return DriftReport(tuple(labels), unrecorded)


def _state(
    qid: str,
    doc: str,
    grade: int,
    digest: str,
    corpus: Mapping[str, str],
    holders: Mapping[str, list[str]],
    labelled: Mapping[str, int],
) -> LabelDrift:
    now = corpus.get(doc)
    if now is not None:
        state = LabelState.UNCHANGED if now == digest else LabelState.CHANGED
        return LabelDrift(qid, doc, grade, state)
    found = holders.get(digest, [])
    if len(found) == 1 and found[0] not in labelled:
        return LabelDrift(qid, doc, grade, LabelState.MOVED, found[0])
    return LabelDrift(qid, doc, grade, LabelState.GONE)
