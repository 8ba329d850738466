"""Findings on judgments: ``grade-outside-scale`` (a grade the set's declared scale does not
have, most often a typo) and ``conflicting-judgment`` (one document both relevant and judged
not relevant for the same question, asked twice). Within one question the loader already
refuses a document that is both."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from retrieval_eval.questions.lint.analyzer import TermAnalyzer
from retrieval_eval.questions.lint.duplicates import question_key
from retrieval_eval.questions.lint.findings import Finding, FindingKind
from retrieval_eval.questions.model import GoldenQuestion


def scale_findings(
    questions: Sequence[GoldenQuestion], scale: tuple[int, int] | None
) -> list[Finding]:
    """Every question with a grade outside ``scale`` (nothing when none is declared)."""
    if scale is None:
        return []
    low, high = scale
    findings = []
    for q in questions:
        outside = {doc: grade for doc, grade in q.grades.items() if not low <= grade <= high}
        if outside:
            said = ", ".join(f"{doc!r} graded {grade}" for doc, grade in outside.items())
            message = f"{q.id}: {said}, outside the set's grade scale {low}-{high}"
            evidence = {"grades": outside, "scale": [low, high]}
            findings.append(Finding(FindingKind.GRADE_OUTSIDE_SCALE, (q.id,), message, evidence))
    return findings


def conflict_findings(
    questions: Sequence[GoldenQuestion], analyzer: TermAnalyzer, level: int
) -> list[Finding]:
    """Documents expected for one question and judged not relevant (below ``level``) for
    another that asks the same thing (``duplicate-question``'s rule)."""
    groups: dict[tuple[bool, frozenset[str]], list[GoldenQuestion]] = defaultdict(list)
    for q in questions:
        if q.judgments:
            groups[question_key(q.question, analyzer)].append(q)
    findings = []
    for group in groups.values():
        relevant = {d: q.id for q in group for d in q.expected_document_ids}
        for q in group:
            for doc, grade in q.judgments:
                if grade < level and doc in relevant:
                    ids = (relevant[doc], q.id)
                    message = (
                        f"{doc!r} is relevant to {ids[0]} but judged {grade} for {ids[1]}, "
                        "which asks the same thing: one judgment is wrong"
                    )
                    evidence = {"document_id": doc, "grade": grade}
                    kind = FindingKind.CONFLICTING_JUDGMENT
                    findings.append(Finding(kind, ids, message, evidence))
    return findings
