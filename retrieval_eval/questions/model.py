"""Golden questions and sets: the labels every run is scored against."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from retrieval_eval.records import Form


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
    name: str
    questions: tuple[GoldenQuestion, ...]
    description: str = ""
    #: Where the set came from (file path or provider entry point), for listings.
    source: str = ""
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fingerprint", label_fingerprint(self.questions))

    def __len__(self) -> int:
        return len(self.questions)


def label_fingerprint(questions: tuple[GoldenQuestion, ...] | list[GoldenQuestion]) -> str:
    """A digest of everything that affects scoring, independent of question order."""
    records = sorted((q.fingerprint_record() for q in questions), key=lambda r: str(r[0]))
    canonical = json.dumps(records, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()
