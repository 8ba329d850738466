"""Import a BEIR-format dataset (queries.jsonl + qrels/<split>.tsv) as a golden set.

Every query with at least one relevant document (qrels score > 0) becomes a question whose
expected ids are all its relevant documents, in qrels order; queries keep their BEIR ids
and the order of ``queries.jsonl``. BEIR never labels how a query is phrased against its
documents, so imported questions get ``Form.UNLABELLED`` and no hard class: reports show
them apart instead of passing them off as MATCH or GAP. Any input may be gzipped
(``queries.jsonl.gz``, ``qrels/test.tsv.gz``). The corpus is not read.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.formats import read_text
from retrieval_eval.questions.jsondecode import UnreadableJSON, read_line
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems
from retrieval_eval.records.outcome import Form
from retrieval_eval.text import is_blank


def _find(directory: Path, relative: str) -> Path | None:
    for candidate in (directory / relative, directory / f"{relative}.gz"):
        if candidate.is_file():
            return candidate
    return None


def _read(path: Path) -> str:
    try:
        return read_text(path)
    except (OSError, UnicodeDecodeError) as e:
        raise QuestionSetError(f"{path}: cannot read: {e}") from e


def read_qrels(path: Path) -> dict[str, list[str]]:
    """query id -> relevant document ids (score > 0), in file order; header optional."""
    relevant: dict[str, list[str]] = {}
    problems: list[Problem] = []
    for number, row in enumerate(csv.reader(io.StringIO(_read(path)), delimiter="\t"), 1):
        if not row or (number == 1 and row[0].strip().lower() in {"query-id", "query_id", "qid"}):
            continue
        if len(row) < 3:
            problems.append(Problem(str(path), number, f"expected 3 columns, got {len(row)}"))
            continue
        query_id, doc_id, score = (c.strip() for c in row[-3:])
        try:
            value = float(score)
        except ValueError:
            problems.append(Problem(str(path), number, f"score {score!r} is not a number"))
            continue
        docs = relevant.setdefault(query_id, [])
        if value > 0 and doc_id not in docs:
            docs.append(doc_id)
    if problems:
        raise QuestionSetProblems(str(path), problems)
    return relevant


def read_queries(path: Path) -> dict[str, tuple[str, int]]:
    """query id -> (text, line)."""
    queries: dict[str, tuple[str, int]] = {}
    problems: list[Problem] = []
    for number, line in enumerate(_read(path).split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = read_line(line)
        except UnreadableJSON as e:
            problems.append(Problem(str(path), number, f"invalid JSON: {e.reason}"))
            continue
        qid = record.get("_id") if isinstance(record, dict) else None
        if not isinstance(qid, str | int) or isinstance(qid, bool):
            problems.append(Problem(str(path), number, "query without an '_id'"))
            continue
        queries[str(qid)] = (str(record.get("text") or ""), number)
    if problems:
        raise QuestionSetProblems(str(path), problems)
    return queries


def import_beir(directory: Path, split: str = "test", name: str | None = None) -> GoldenQuestionSet:
    """The golden set of ``split``; ``QuestionSetError`` naming the file on bad input."""
    directory = Path(directory)
    queries_path = _find(directory, "queries.jsonl")
    if queries_path is None:
        raise QuestionSetError(f"{directory}: no queries.jsonl(.gz); is this a BEIR dataset?")
    qrels_path = _find(directory, f"qrels/{split}.tsv")
    if qrels_path is None:
        splits = sorted(p.name.split(".")[0] for p in (directory / "qrels").glob("*.tsv*"))
        available = ", ".join(splits) or "none"
        raise QuestionSetError(f"{directory}: no qrels/{split}.tsv; splits available: {available}")
    relevant = read_qrels(qrels_path)
    queries = read_queries(queries_path)
    problems = [
        Problem(str(qrels_path), None, "query id not in queries.jsonl", qid)
        for qid, docs in relevant.items()
        if docs and qid not in queries
    ]
    questions = []
    for qid, (text, line) in queries.items():
        docs = relevant.get(qid)
        if not docs:
            continue
        if is_blank(text):
            problems.append(Problem(str(queries_path), line, "empty query text", qid))
        questions.append(GoldenQuestion(qid, text, Form.UNLABELLED, tuple(docs)))
    if problems:
        raise QuestionSetProblems(str(directory), problems)
    if not questions:
        raise QuestionSetError(f"{qrels_path}: no query has a relevant document")
    dataset = directory.resolve().name
    return GoldenQuestionSet(
        name=name or f"{dataset}-{split}",
        questions=tuple(questions),
        description=(
            f"BEIR {dataset}, split {split}: {len(questions)} queries with relevant documents "
            "(imported; forms UNLABELLED)"
        ),
        source=str(directory),
    )
