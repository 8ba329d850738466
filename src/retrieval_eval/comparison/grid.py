"""The per-question grid of a comparison: one row per question, one cell per run.

Rows where the runs disagree (their cells differ) come first, then the reference's
question order; questions missing from the reference follow in the order first seen.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_eval.comparison.overlap import jaccard, rbo
from retrieval_eval.comparison.results import Cell, QuestionOverlap, QuestionRow
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult


def cell(outcome: QuestionOutcome | None) -> Cell:
    if outcome is None:
        return Cell.ABSENT
    if outcome.error is not None:
        return Cell.ERROR
    if outcome.hits.get(1):
        return Cell.HIT1
    if outcome.hits.get(3):
        return Cell.HIT3
    return Cell.MISS


def question_rows(
    runs: Sequence[RunResult], overlap_k: int, rbo_p: float, top_documents: int
) -> tuple[QuestionRow, ...]:
    by_run = [{q.question_id: q for q in run.questions} for run in runs]
    order = list(dict.fromkeys(q.question_id for run in runs for q in run.questions))
    rows = [_row(qid, [m.get(qid) for m in by_run], overlap_k, rbo_p, top_documents)
            for qid in order]  # fmt: skip
    return tuple(sorted(rows, key=lambda r: not r.disagree))


def _row(
    question_id: str,
    outcomes: list[QuestionOutcome | None],
    overlap_k: int,
    rbo_p: float,
    top_documents: int,
) -> QuestionRow:
    known = next(q for q in outcomes if q is not None)
    cells = tuple(map(cell, outcomes))
    reference = outcomes[0]
    overlap: list[QuestionOverlap | None] = []
    for other in outcomes[1:]:
        if reference is None or other is None or not (reference.answered and other.answered):
            overlap.append(None)
            continue
        before = reference.ranked_document_ids[:overlap_k]
        now = other.ranked_document_ids[:overlap_k]
        overlap.append(QuestionOverlap(jaccard(before, now, overlap_k), rbo(before, now, rbo_p)))
    return QuestionRow(
        question_id=question_id,
        form=known.form.value,
        hard_class=known.hard_class,
        expected_document_ids=known.expected_document_ids,
        cells=cells,
        top_documents=tuple(
            () if q is None else q.ranked_document_ids[:top_documents] for q in outcomes
        ),
        overlap=tuple(overlap),
        disagree=len(set(cells)) > 1,
        question_text=next((q.question_text for q in outcomes if q and q.question_text), None),
    )
