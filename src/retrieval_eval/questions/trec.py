"""Read TREC qrels and topics files, and import them as a golden set (see ``judged``).

- qrels: four whitespace-separated columns per line, ``topic iteration document grade``
  (the iteration is ignored, as trec_eval ignores it); negative grades are read as 0.
- topics: ``id<TAB>text`` per line (Anserini's and ir_datasets' TSV), or, for a file
  named ``.jsonl``, one JSON object per line with ``_id`` (or ``id``) and ``text``, as
  BEIR's queries.jsonl.

Any file may be gzipped (``.gz``). Files are read a line at a time within the set
files' limits (``bounded``), so a huge, binary or deeply nested file is one clear
problem; every bad line is named ``file:line``.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path

from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.bounded import TooLarge, numbered_lines, open_set_file
from retrieval_eval.questions.judged import (
    DEFAULT_RELEVANCE_LEVEL,
    MAX_PROBLEMS,
    JudgedSet,
    Qrels,
    Topics,
    add_judgment,
    build_judged_set,
    check_grade,
)
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems


def read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The file's non-blank lines with their numbers (gzip by suffix); a file that cannot
    be read, is not UTF-8 or goes over a limit is one ``QuestionSetError`` naming it."""
    gz = path.suffix.lower() == ".gz"
    try:
        with open_set_file(path) as f:
            yield from numbered_lines(f, path)
    except UnicodeDecodeError as e:
        raise QuestionSetError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except TooLarge as e:
        raise QuestionSetError(f"{path}: cannot read: {e}") from None
    except (OSError, EOFError, zlib.error) as e:
        what = getattr(e, "strerror", None) or (f"not a valid gzip file ({e})" if gz else e)
        raise QuestionSetError(f"{path}: cannot read: {what}") from None


class _Problems:
    """Problems of one file, up to ``MAX_PROBLEMS``: then reading stops."""

    def __init__(self, path: Path) -> None:
        self.source = str(path)
        self.found: list[Problem] = []

    def add(self, line: int, message: str, topic: str | None = None) -> bool:
        """Record a problem; False once enough are recorded to stop reading."""
        self.found.append(Problem(self.source, line, message, topic))
        return len(self.found) < MAX_PROBLEMS

    def raise_any(self) -> None:
        if self.found:
            raise QuestionSetProblems(self.source, self.found)


def read_trec_qrels(path: Path) -> Qrels:
    """topic -> document -> judgment, in file order (module docstring)."""
    qrels: Qrels = {}
    problems = _Problems(path)
    for number, line in read_lines(path):
        columns = line.split()
        if len(columns) != 4:
            more = problems.add(
                number,
                f"expected 4 columns (topic iteration document grade), got {len(columns)}",
            )
        else:
            topic, _, doc, grade = columns
            checked = check_grade(grade)
            if isinstance(checked, str):
                more = problems.add(number, checked, topic)
            else:
                found = add_judgment(qrels, topic, doc, checked, number, problems.source)
                more = found is None or problems.add(number, found.message, topic)
        if not more:
            break
    problems.raise_any()
    return qrels


def read_topics(path: Path) -> Topics:
    """topic id -> (text, line), in file order: JSONL for a ``.jsonl`` name, else TSV."""
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    jsonl = bool(suffixes) and suffixes[-1] == ".jsonl"
    topics: Topics = {}
    problems = _Problems(path)
    for number, line in read_lines(path):
        parsed = _jsonl_topic(line) if jsonl else _tsv_topic(line)
        if isinstance(parsed, str):
            more = problems.add(number, parsed)
        elif parsed[0] in topics:
            first = topics[parsed[0]][1]
            more = problems.add(number, f"topic given twice (first at line {first})", parsed[0])
        else:
            topics[parsed[0]] = (parsed[1], number)
            more = True
        if not more:
            break
    problems.raise_any()
    return topics


def _tsv_topic(line: str) -> tuple[str, str] | str:
    topic, tab, text = line.partition("\t")
    if not tab:
        hint = "; a JSONL topics file must be named .jsonl" if line.lstrip()[:1] == "{" else ""
        return f"expected 'id<TAB>text', found no tab{hint}"
    if not topic.strip():
        return "empty topic id before the tab"
    return topic.strip(), text.strip()


def _jsonl_topic(line: str) -> tuple[str, str] | str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        return f"invalid JSON: {e.msg} (column {e.colno})"
    except RecursionError:
        return "invalid JSON: nested too deeply to read"
    except ValueError as e:  # an integer over Python's digit limit
        return f"invalid JSON: {e}"
    if not isinstance(record, dict):
        return f"expected a JSON object, got {type(record).__name__}"
    topic = record.get("_id", record.get("id"))
    if isinstance(topic, bool) or not isinstance(topic, str | int) or not str(topic).strip():
        return "topic without an '_id' (or 'id')"
    text = record.get("text")
    if not isinstance(text, str):
        return f"topic {str(topic)[:80]!r}: 'text' must be a string"
    return str(topic).strip(), text


def import_trec(
    qrels_path: Path,
    topics_path: Path,
    name: str | None = None,
    *,
    relevance_level: int = DEFAULT_RELEVANCE_LEVEL,
    skip_no_relevant: bool = False,
) -> GoldenQuestionSet:
    """The golden set of every judged topic (its expected documents at
    ``relevance_level``); ``QuestionSetError`` naming file and line."""
    judged = import_trec_judgments(
        qrels_path,
        topics_path,
        name,
        relevance_level=relevance_level,
        skip_no_relevant=skip_no_relevant,
    )
    return judged.to_question_set()


def import_trec_judgments(
    qrels_path: Path,
    topics_path: Path,
    name: str | None = None,
    *,
    relevance_level: int = DEFAULT_RELEVANCE_LEVEL,
    skip_no_relevant: bool = False,
) -> JudgedSet:
    """The judged set of every judged topic, grades and zeros kept (what
    ``sets import-trec`` writes); ``QuestionSetError`` naming file and line."""
    qrels_path, topics_path = Path(qrels_path), Path(topics_path)
    qrels = read_trec_qrels(qrels_path)
    topics = read_topics(topics_path)
    stem = qrels_path.name.removesuffix(".gz").removesuffix(".GZ")
    stem = stem.rpartition(".")[0] or stem
    return build_judged_set(
        qrels,
        topics,
        qrels_source=str(qrels_path),
        topics_source=str(topics_path),
        name=name or stem,
        description=f"TREC qrels {qrels_path.name}, topics {topics_path.name} (imported; "
        "forms UNLABELLED)",
        source=str(qrels_path),
        relevance_level=relevance_level,
        skip_no_relevant=skip_no_relevant,
    )
