"""``form-mismatch``: a MATCH question that shares little vocabulary with its targets, or a
GAP question that shares much. The evidence places the question's overlap among the set's
own MATCH and GAP questions, so a reader can tell a borderline case from a clear one."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from retrieval_eval.questions.lint.analyzer import FUNCTION_WORDS
from retrieval_eval.questions.lint.corpus_index import CorpusIndex
from retrieval_eval.questions.lint.findings import Finding, FindingKind
from retrieval_eval.questions.lint.overlap import suggested_form, vocabulary_overlap
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form


def question_overlaps(questions: Sequence[GoldenQuestion], corpus: CorpusIndex) -> dict[str, float]:
    """Overlap of each question with its known, non-empty expected documents (questions
    with none of those are left out)."""
    found: dict[str, float] = {}
    for q in questions:
        docs = [corpus.target_terms[d] for d in q.expected_document_ids
                if d in corpus.target_terms and d not in corpus.empty]  # fmt: skip
        if docs:
            terms = set(corpus.analyzer.terms(q.question, drop=FUNCTION_WORDS))
            found[q.id] = vocabulary_overlap(terms, docs, corpus.weights)
    return found


def form_findings(
    questions: Sequence[GoldenQuestion], overlaps: dict[str, float], cutoff: float
) -> list[Finding]:
    by_form = {
        form: sorted(overlaps[q.id] for q in questions if q.form is form and q.id in overlaps)
        for form in (Form.MATCH, Form.GAP)
    }
    findings = []
    for q in questions:
        overlap = overlaps.get(q.id)
        if overlap is None or q.form not in by_form:
            continue
        measured = suggested_form(overlap, cutoff)
        if measured is q.form:
            continue
        side = "below" if measured is Form.GAP else "at or above"
        message = (
            f"labelled {q.form.value} but its vocabulary overlap with its expected documents "
            f"is {overlap:.2f}, {side} the MATCH cut-off {cutoff:g}; "
            f"{_placement(overlap, by_form)}"
        )
        findings.append(Finding(FindingKind.FORM_MISMATCH, (q.id,), message, {
            "labelled_form": q.form.value,
            "measured_form": measured.value,
            "overlap": round(overlap, 4),
            "cutoff": cutoff,
            "match_overlaps_below": bisect_left(by_form[Form.MATCH], overlap),
            "match_questions": len(by_form[Form.MATCH]),
            "gap_overlaps_above": len(by_form[Form.GAP]) - bisect_right(by_form[Form.GAP], overlap),
            "gap_questions": len(by_form[Form.GAP]),
        }))  # fmt: skip
    return findings


def _placement(overlap: float, by_form: dict[Form, list[float]]) -> str:
    match, gap = by_form[Form.MATCH], by_form[Form.GAP]
    below = bisect_left(match, overlap)
    above = len(gap) - bisect_right(gap, overlap)
    return (
        f"{below} of the set's {len(match)} MATCH questions overlap less, "
        f"{above} of its {len(gap)} GAP questions overlap more"
    )
