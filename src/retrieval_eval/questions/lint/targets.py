"""Checks of expected documents against the corpus: ``unknown-document``,
``empty-document`` and ``untargeted-near-duplicate``.

A near-duplicate of a target that is not itself a target means the label is probably
incomplete (the twin answers too) or the question belongs to the ``near-duplicate`` hard
class (the twin is a trap). Questions already in that class are not reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_eval.questions.lint.corpus_index import CorpusIndex
from retrieval_eval.questions.lint.findings import Finding, FindingKind
from retrieval_eval.questions.model import GoldenQuestion

NEAR_DUPLICATE_CLASS = "near-duplicate"


def document_findings(
    questions: Sequence[GoldenQuestion], corpus: CorpusIndex, corpus_name: str
) -> list[Finding]:
    findings = []
    for q in questions:
        for doc in q.expected_document_ids:
            if doc not in corpus:
                message = f"expected document {doc!r} is not in the corpus {corpus_name}"
                kind = FindingKind.UNKNOWN_DOCUMENT
            elif doc in corpus.empty:
                message = f"expected document {doc!r} has no text"
                kind = FindingKind.EMPTY_DOCUMENT
            else:
                continue
            findings.append(Finding(kind, (q.id,), message, {"document_id": doc}))
    return findings


def near_duplicate_findings(
    questions: Sequence[GoldenQuestion], corpus: CorpusIndex, threshold: float
) -> list[Finding]:
    checked = [q for q in questions if q.hard_class != NEAR_DUPLICATE_CLASS]
    targets = sorted({corpus.position[d] for q in checked for d in q.expected_document_ids
                      if d in corpus and d not in corpus.empty})  # fmt: skip
    twins = corpus.shingles.similar(targets, threshold)
    findings = []
    for q in checked:
        expected = set(q.expected_document_ids)
        for doc in q.expected_document_ids:
            if doc not in corpus or doc in corpus.empty:
                continue
            for other, similarity in twins[corpus.position[doc]]:
                twin = corpus.ids[other]
                if twin in expected:
                    continue
                message = (
                    f"expected document {doc!r} has a near-duplicate {twin!r} (shingle "
                    f"similarity {similarity:.2f}) that is not expected: list it too if it "
                    f"answers, or mark the question hard_class {NEAR_DUPLICATE_CLASS!r}"
                )
                findings.append(Finding(FindingKind.UNTARGETED_NEAR_DUPLICATE, (q.id,), message, {
                    "document_id": doc,
                    "near_duplicate_id": twin,
                    "similarity": round(similarity, 4),
                }))  # fmt: skip
    return findings
