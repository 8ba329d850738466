"""Lint findings from label drift: ``document-moved`` and ``document-changed``.

A moved label is reported once, as moved (with the id to fix it to), not also as an
``unknown-document``; a gone one is the ``unknown-document`` finding it already was when
it is expected, and counted in the report's ``label_digests`` either way.
"""

from __future__ import annotations

from collections.abc import Iterable

from retrieval_eval.questions.lint.drift import DriftReport, LabelState
from retrieval_eval.questions.lint.findings import Finding, FindingKind


def drift_findings(drift: DriftReport | None) -> list[Finding]:
    findings = []
    for d in drift.drifted if drift is not None else ():
        evidence = {"document_id": d.document_id, "grade": d.grade}
        if d.state is LabelState.MOVED:
            message = (
                f"the text judged as {d.document_id!r} is now {d.moved_to!r} "
                "(reval sets lint --fix-moved relabels it)"
            )
            evidence["moved_to"] = str(d.moved_to)
            kind = FindingKind.DOCUMENT_MOVED
            findings.append(Finding(kind, (d.question_id,), message, evidence))
        elif d.state is LabelState.CHANGED:
            message = (
                f"document {d.document_id!r} (graded {d.grade}) changed since it was judged: "
                "judge it again"
            )
            kind = FindingKind.DOCUMENT_CHANGED
            findings.append(Finding(kind, (d.question_id,), message, evidence))
    return findings


def without_moved(findings: Iterable[Finding], drift: DriftReport | None) -> list[Finding]:
    """``findings`` less the ``unknown-document`` ones of labels that moved."""
    moved = drift.moved() if drift is not None else {}
    return [
        f
        for f in findings
        if not (
            f.kind is FindingKind.UNKNOWN_DOCUMENT
            and f.evidence.get("document_id") in moved.get(f.question_ids[0], {})
        )
    ]
