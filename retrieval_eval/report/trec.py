"""TREC export of a run: a run file and qrels, for trec_eval, ranx or ir_measures.

The run file lists each answered question's distinct documents (after the chunk
collapse, the documents the scores were computed over) in rank order, with a descending
score so that tools which re-sort by score keep reval's order. Errored questions are left
out (they were never answered); questions with no expected document have no qrels.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from retrieval_eval.errors import InputError
from retrieval_eval.records import RunResult


def run_lines(run: RunResult, run_name: str | None = None) -> Iterator[str]:
    """``qid Q0 docid rank score run_name``, ranks from 1."""
    name = _token(run_name or run.run_id or run.retriever.identifier, "run name")
    for q in run.questions:
        if q.error is not None:
            continue
        qid = _token(q.question_id, "question id")
        count = len(q.ranked_document_ids)
        for rank, doc in enumerate(q.ranked_document_ids, start=1):
            doc = _token(doc, f"document id of {qid}")
            yield f"{qid} Q0 {doc} {rank} {count - rank + 1} {name}"


def qrels_lines(run: RunResult) -> Iterator[str]:
    """``qid 0 docid 1`` for every expected document (binary relevance)."""
    for q in run.questions:
        qid = _token(q.question_id, "question id")
        for doc in dict.fromkeys(q.expected_document_ids):
            yield f"{qid} 0 {_token(doc, f'expected document of {qid}')} 1"


def export_trec(
    run: RunResult, run_path: Path | None, qrels_path: Path | None, run_name: str | None = None
) -> tuple[int, int]:
    """Write either or both files; returns (run lines, qrels lines) written."""
    run_count = _write(run_path, list(run_lines(run, run_name))) if run_path else 0
    qrels_count = _write(qrels_path, list(qrels_lines(run))) if qrels_path else 0
    return run_count, qrels_count


def _write(path: Path, lines: list[str]) -> int:
    try:
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from e
    return len(lines)


_WHITESPACE = re.compile(r"\s")


def _token(value: str, what: str) -> str:
    if not value or _WHITESPACE.search(value):
        raise InputError(f"{what} {value!r} cannot be written in TREC format (whitespace)")
    return value
