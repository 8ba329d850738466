"""What a set contains, at a glance: counts by form and hard class, no-answer questions."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.outcome import UNCLASSIFIED, Form

#: The hard-class key of questions that have none: the word ``reval eval`` reports use.
NO_CLASS = UNCLASSIFIED


@dataclass(frozen=True, slots=True)
class SetSummary:
    name: str
    description: str
    source: str
    fingerprint: str
    questions: int
    expected_document_ids: int
    #: Every form, in Form order, zero counts included.
    by_form: dict[str, int]
    #: Hard classes by decreasing count, then name; ``unclassified`` for questions without one.
    by_hard_class: dict[str, int]
    #: Ids of the questions that expect no document (a hit only when nothing comes back).
    no_answer: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "fingerprint": self.fingerprint,
            "questions": self.questions,
            "expected_document_ids": self.expected_document_ids,
            "by_form": dict(self.by_form),
            "by_hard_class": dict(self.by_hard_class),
            "no_answer": list(self.no_answer),
        }


def summarize_set(qs: GoldenQuestionSet) -> SetSummary:
    forms = Counter(q.form for q in qs.questions)
    classes = Counter(q.hard_class or NO_CLASS for q in qs.questions)
    return SetSummary(
        name=qs.name,
        description=qs.description,
        source=qs.source,
        fingerprint=qs.fingerprint,
        questions=len(qs.questions),
        expected_document_ids=sum(len(q.expected_document_ids) for q in qs.questions),
        by_form={f.value: forms.get(f, 0) for f in Form},
        by_hard_class=dict(sorted(classes.items(), key=lambda kv: (-kv[1], kv[0]))),
        no_answer=tuple(q.id for q in qs.questions if q.expects_nothing),
    )
