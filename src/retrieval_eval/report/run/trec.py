"""TREC export of a run: a run file and qrels, for trec_eval, ranx or ir_measures.

Both files cover the same questions, so that tools which insist on matching query ids
(ranx) accept the pair and the measures they compute are reval's:

- The run file lists each answered question's distinct documents (after the chunk
  collapse, the documents reval scored) in rank order. The score is the retriever's own
  (of the document's best chunk) when the retriever gave scores that fall strictly along
  reval's ranking; otherwise it is derived from the rank (descending), so that tools which
  re-sort by score keep reval's order.
- Questions whose retrieval failed are left out of both (they were never answered).
- The qrels are graded: every document judged for the question with the grade it was
  scored against (``RunResult.grades_of``), judged-not-relevant ones at 0 included; a
  run stored before grades were kept has its expected documents at grade 1.
- Questions without any judgment (no-answer questions of plain labels) are left out of
  both by default: they have no qrels line, so trec_eval has no such topic.
  ``keep_no_answer`` keeps them in the run file. A question whose documents are all
  judged not relevant is kept: it is a judged topic, which trec_eval counts.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from retrieval_eval.errors import InputError
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult
from retrieval_eval.retrievers.documents import document_id


@dataclass(frozen=True, slots=True)
class TrecExport:
    run_lines: tuple[str, ...]
    qrels_lines: tuple[str, ...]
    #: Question ids left out because their retrieval failed.
    errored: tuple[str, ...]
    #: Ids of questions without any judgment, left out (empty when kept).
    no_answer_left_out: tuple[str, ...]
    #: Questions whose scores were derived from ranks (no usable retriever scores).
    rank_scored: int


def trec_export(
    run: RunResult, run_name: str | None = None, *, keep_no_answer: bool = False
) -> TrecExport:
    name = _token(run_name or run.run_id or run.retriever.identifier, "run name")
    separator = run.parameters.doc_id_separator
    lines: list[str] = []
    qrels: list[str] = []
    errored, no_answer = [], []
    rank_scored = 0
    for q in run.questions:
        if q.error is not None:
            errored.append(q.question_id)
            continue
        grades = run.grades_of(q)
        if not grades and not keep_no_answer:
            no_answer.append(q.question_id)
            continue
        qid = _token(q.question_id, "question id")
        scores = retriever_scores(q, separator)
        rank_scored += scores is None and bool(q.ranked_document_ids)
        count = len(q.ranked_document_ids)
        for rank, doc in enumerate(q.ranked_document_ids, start=1):
            doc = _token(doc, f"document id of {qid}")
            score = repr(scores[rank - 1]) if scores is not None else str(count - rank + 1)
            lines.append(f"{qid} Q0 {doc} {rank} {score} {name}")
        for doc, grade in grades.items():
            qrels.append(f"{qid} 0 {_token(doc, f'judged document of {qid}')} {grade}")
    return TrecExport(tuple(lines), tuple(qrels), tuple(errored), tuple(no_answer), rank_scored)


def retriever_scores(q: QuestionOutcome, separator: str) -> list[float] | None:
    """The retriever's score of each distinct document (its first, best-ranked result),
    or None unless every one has a finite score and they fall strictly in rank order."""
    if not q.raw_scores:
        return None
    first: dict[str, float | None] = {}
    for result_id, score in zip(q.raw_ids, q.raw_scores, strict=False):
        if result_id:
            first.setdefault(document_id(result_id, separator), score)
    scores = [first.get(doc) for doc in q.ranked_document_ids]
    if any(s is None or s != s or s in (float("inf"), float("-inf")) for s in scores):
        return None
    values = [float(s) for s in scores if s is not None]
    if any(a <= b for a, b in itertools.pairwise(values)):
        return None
    return values


def run_lines(run: RunResult, run_name: str | None = None) -> Iterator[str]:
    """``qid Q0 docid rank score run_name``, ranks from 1 (no-answer questions kept)."""
    yield from trec_export(run, run_name, keep_no_answer=True).run_lines


def qrels_lines(run: RunResult) -> Iterator[str]:
    """``qid 0 docid grade`` for every judged document of an answered question."""
    yield from trec_export(run).qrels_lines


_WHITESPACE = re.compile(r"\s")


def _token(value: str, what: str) -> str:
    if not value or _WHITESPACE.search(value):
        raise InputError(f"{what} {value!r} cannot be written in TREC format (whitespace)")
    return value
