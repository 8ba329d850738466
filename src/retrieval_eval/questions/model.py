"""Golden questions and sets: the labels every run is scored against."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

from retrieval_eval.records.outcome import Form


@dataclass(frozen=True, slots=True)
class GoldenQuestion:
    id: str
    question: str
    form: Form
    #: Every document that answers the question; any one counts. Empty: nothing should be found.
    expected_document_ids: tuple[str, ...]
    hard_class: str | None = None
    #: Documentation for the labeller only; never scored, not part of the fingerprint.
    answer_gist: str | None = None
    #: Every judged document and its grade (>= 0; 0 = judged not relevant), in file order,
    #: when the labels say more than a list does; empty for plain labels: each expected
    #: document at grade 1 and nothing else judged. ``expected_document_ids`` are the
    #: documents whose grade reaches the set's relevance level.
    judgments: tuple[tuple[str, int], ...] = ()

    @property
    def expects_nothing(self) -> bool:
        return not self.expected_document_ids

    @property
    def grades(self) -> dict[str, int]:
        """Document id -> grade for every judged document (plain labels: 1 each)."""
        if self.judgments:
            return dict(self.judgments)
        return dict.fromkeys(self.expected_document_ids, 1)

    def at_level(self, level: int) -> GoldenQuestion:
        """The question with the documents graded ``level`` or more as its expected ones."""
        graded = self.judgments or tuple((doc, 1) for doc in self.expected_document_ids)
        expected = tuple(doc for doc, grade in graded if grade >= level)
        plain = level == 1 and all(grade == 1 for _, grade in graded)
        return replace(self, expected_document_ids=expected, judgments=() if plain else graded)

    def fingerprint_record(self) -> list[object]:
        """What the fingerprint hashes; plain labels give exactly the record they always
        gave, so a set without grades or negatives keeps its fingerprint."""
        record: list[object] = [
            self.id,
            self.question,
            self.form.value,
            self.hard_class,
            sorted(self.expected_document_ids),
        ]
        if self.judgments:
            record.append(sorted([doc, grade] for doc, grade in self.judgments))
        return record


@dataclass(frozen=True, slots=True)
class GoldenQuestionSet:
    """A named set of questions. ``questions`` is a tuple, or for a set read from a file a
    ``CompactQuestions`` (the same questions held by column, read like a tuple)."""

    name: str
    questions: Sequence[GoldenQuestion]
    description: str = ""
    #: Where the set came from (file path or provider entry point), for listings.
    source: str = ""
    fingerprint: str = field(init=False)
    #: The grade a document needs to be expected (a target for hits, MRR, recall).
    relevance_level: int = 1
    #: The lowest and highest grade the set's labellers use, when it declares them.
    grade_scale: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "fingerprint", label_fingerprint(self.questions))

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def graded(self) -> bool:
        """Whether any question says more than a list of expected ids."""
        judged = getattr(self.questions, "judged", None)
        if judged is not None:
            return bool(judged())
        return any(q.judgments for q in self.questions)

    def judgments_by_id(self) -> dict[str, tuple[tuple[str, int], ...]]:
        """Question id -> judgments of the questions that have any (a run keeps them:
        ``RunResult.judgments``); empty for a set of plain labels, read without a pass."""
        if not self.graded:
            return {}
        return {q.id: q.judgments for q in self.questions if q.judgments}

    def at_level(self, level: int) -> GoldenQuestionSet:
        """The set scored at relevance level ``level`` (itself when it already is)."""
        if level == self.relevance_level:
            return self
        questions = tuple(q.at_level(level) for q in self.questions)
        return replace(self, questions=questions, relevance_level=level)


def label_fingerprint(questions: Sequence[GoldenQuestion]) -> str:
    """A digest of everything that affects scoring, independent of question order.

    The digest of the compact JSON list of every question's ``fingerprint_record``, sorted
    by id; hashed in slices so a big set's canonical text never exists as one string (and
    a compact set's questions are built a slice at a time).
    """
    digest = hashlib.sha256(b"[")
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    for start, records in enumerate(_record_slices(questions)):
        text = dumps(records)[1:-1]  # the slice's records without their brackets
        digest.update(("," + text if start else text).encode("utf-8"))
    digest.update(b"]")
    return "sha256:" + digest.hexdigest()


def _record_slices(questions: Sequence[GoldenQuestion]) -> Iterator[list[list[object]]]:
    """``fingerprint_record`` of every question in id order, ``_SLICE`` at a time; a
    ``CompactQuestions`` gives its id order and records from its columns."""
    by_id = getattr(questions, "by_id", None)
    if by_id is not None:
        rows = by_id()
        records = questions.fingerprint_records  # type: ignore[attr-defined]
        for start in range(0, len(rows), _SLICE):
            yield records(rows[start : start + _SLICE])
        return
    ordered = sorted(questions, key=lambda q: str(q.id))
    for start in range(0, len(ordered), _SLICE):
        yield [q.fingerprint_record() for q in ordered[start : start + _SLICE]]


#: Questions hashed at a time by ``label_fingerprint``.
_SLICE = 4096
