"""Import a BEIR-format dataset (queries.jsonl + qrels/<split>.tsv) as a golden set.

Every query with a qrels line becomes a question with its judgments (document id ->
grade, zeros kept as judged not relevant), in the order of ``queries.jsonl``; the rules
(queries judged only not relevant, duplicate lines, forms) are ``judged``'s, shared with
the TREC import. BEIR never labels how a query is phrased against its documents, so
imported questions get ``Form.UNLABELLED`` and no hard class: reports show them apart
instead of passing them off as MATCH or GAP. Any input may be gzipped
(``queries.jsonl.gz``, ``qrels/test.tsv.gz``). The corpus is not read.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.formats import read_text
from retrieval_eval.questions.jsondecode import UnreadableJSON, read_line
from retrieval_eval.questions.judged import (
    DEFAULT_RELEVANCE_LEVEL,
    MAX_PROBLEMS,
    JudgedSet,
    Qrels,
    add_judgment,
    build_judged_set,
    check_grade,
)
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems


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


def read_qrels(path: Path) -> Qrels:
    """query id -> document id -> judgment, in file order; the header is optional.
    Three tab-separated columns (query, document, grade); a wider row's last three."""
    qrels: Qrels = {}
    problems: list[Problem] = []
    for number, row in enumerate(csv.reader(io.StringIO(_read(path)), delimiter="\t"), 1):
        if not row or (number == 1 and row[0].strip().lower() in {"query-id", "query_id", "qid"}):
            continue
        if len(row) < 3:
            problems.append(Problem(str(path), number, f"expected 3 columns, got {len(row)}"))
        else:
            query_id, doc_id, score = (c.strip() for c in row[-3:])
            grade = check_grade(score)
            if isinstance(grade, str):
                problems.append(Problem(str(path), number, grade, query_id))
            else:
                found = add_judgment(qrels, query_id, doc_id, grade, number, str(path))
                problems += [found] if found is not None else []
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise QuestionSetProblems(str(path), problems)
    return qrels


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


def import_beir(
    directory: Path,
    split: str = "test",
    name: str | None = None,
    *,
    relevance_level: int = DEFAULT_RELEVANCE_LEVEL,
    skip_no_relevant: bool = False,
) -> GoldenQuestionSet:
    """The golden set of ``split`` (its expected documents at ``relevance_level``);
    ``QuestionSetError`` naming the file on bad input."""
    judged = import_beir_judgments(
        directory, split, name, relevance_level=relevance_level, skip_no_relevant=skip_no_relevant
    )
    return judged.to_question_set()


def import_beir_judgments(
    directory: Path,
    split: str = "test",
    name: str | None = None,
    *,
    relevance_level: int = DEFAULT_RELEVANCE_LEVEL,
    skip_no_relevant: bool = False,
) -> JudgedSet:
    """The judged set of ``split``, grades and zeros kept (what ``sets import-beir``
    writes); ``QuestionSetError`` naming the file on bad input."""
    directory = Path(directory)
    queries_path = _find(directory, "queries.jsonl")
    if queries_path is None:
        raise QuestionSetError(f"{directory}: no queries.jsonl(.gz); is this a BEIR dataset?")
    qrels_path = _find(directory, f"qrels/{split}.tsv")
    if qrels_path is None:
        splits = sorted(p.name.split(".")[0] for p in (directory / "qrels").glob("*.tsv*"))
        available = ", ".join(splits) or "none"
        raise QuestionSetError(f"{directory}: no qrels/{split}.tsv; splits available: {available}")
    qrels = read_qrels(qrels_path)
    queries = read_queries(queries_path)
    dataset = directory.resolve().name
    return build_judged_set(
        qrels,
        queries,
        qrels_source=str(qrels_path),
        topics_source=str(queries_path),
        name=name or f"{dataset}-{split}",
        description=f"BEIR {dataset}, split {split} (imported; forms UNLABELLED)",
        source=str(directory),
        relevance_level=relevance_level,
        skip_no_relevant=skip_no_relevant,
    )
