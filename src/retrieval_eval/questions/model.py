"""Golden questions and sets: the labels every run is scored against."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

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

    @property
    def expects_nothing(self) -> bool:
        return not self.expected_document_ids

    def fingerprint_record(self) -> list[object]:
        return [
            self.id,
            self.question,
            self.form.value,
            self.hard_class,
            sorted(self.expected_document_ids),
        ]


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "fingerprint", label_fingerprint(self.questions))

    def __len__(self) -> int:
        return len(self.questions)


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
