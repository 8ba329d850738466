"""What lint reports: findings of a closed set of kinds, each with its evidence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class FindingKind(StrEnum):
    """Report order: the label is broken, then probably wrong, then worth a look."""

    UNKNOWN_DOCUMENT = "unknown-document"  # an expected id the corpus does not have
    EMPTY_DOCUMENT = "empty-document"  # an expected document with no text
    DOCUMENT_MOVED = "document-moved"  # a judged text now under another id (fixable)
    DOCUMENT_CHANGED = "document-changed"  # a judged document's text changed since
    GRADE_OUTSIDE_SCALE = "grade-outside-scale"  # a grade the set's declared scale lacks
    CONFLICTING_JUDGMENT = "conflicting-judgment"  # relevant and not, for one question
    DUPLICATE_QUESTION = "duplicate-question"  # the same question, asked twice
    SUSPECT_LABEL = "suspect-label"  # retrievers agree on another document, never a target
    UNTARGETED_NEAR_DUPLICATE = "untargeted-near-duplicate"  # a target's twin is no target
    FORM_MISMATCH = "form-mismatch"  # labelled form disagrees with measured overlap
    NO_SIGNAL = "no-signal"  # every stored run always hits, or always misses


@dataclass(frozen=True, slots=True)
class Finding:
    kind: FindingKind
    question_ids: tuple[str, ...]
    message: str
    #: Machine-readable evidence (document ids, similarity, overlap, ...), JSON-ready.
    evidence: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "question_ids": list(self.question_ids),
            "message": self.message,
            **self.evidence,
        }


def ordered(findings: list[Finding]) -> list[Finding]:
    """Findings by kind (in ``FindingKind`` order), then by first question id."""
    rank = {kind: i for i, kind in enumerate(FindingKind)}
    return sorted(findings, key=lambda f: (rank[f.kind], f.question_ids))
