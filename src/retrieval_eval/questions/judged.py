"""Sets imported from graded judgments (TREC qrels, BEIR qrels), and how they are written.

Rules every import follows, so that a set and its qrels give trec_eval's figures:

1. A topic with at least one qrels line becomes a question, in the topics file's order,
   with every judgment of its qrels lines in their order: document id -> grade. A grade
   is an integer; a negative one (TREC's spam -1, -2) is written as 0, judged not relevant.
2. A topic none of whose judgments reaches the relevance level (all 0, say) stays a
   question: trec_eval, pytrec_eval and BEIR score such a topic (as 0 in every mean), so
   it is written as judged "nothing relevant", a question that expects no document.
   ``skip_no_relevant`` leaves it out.
3. A topic without any qrels line is not a question: nobody judged it, and trec_eval
   skips it too. A judged topic missing from the topics file is an error.
4. A document judged twice for one topic with the same grade counts once; with two
   grades it is an error naming both lines (trec_eval refuses any duplicate).
5. Forms are UNLABELLED (qrels never say how a query is phrased) and there is no hard class.

Written files: a set whose judgments are all grade 1 at relevance level 1 (SciFact, most
BEIR sets) is written exactly as a hand-made set (``expected_document_ids``), so it loads,
scores and fingerprints as an import always did. Any other set is written with each
question's ``judgments: {doc: grade}``, the set's ``relevance_level`` and its grade scale
``grades`` (0 and every grade seen). An import given a corpus writes each question's
``document_digests`` too (then a plain set is written with the same keys by this module).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from retrieval_eval.atomic import write_atomically
from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.corpus import CorpusDocument
from retrieval_eval.questions.digests import DIGESTS_KEY
from retrieval_eval.questions.formats import (
    FORMAT_VERSION,
    HEADER_KEY,
    set_format,
    write_question_set,
)
from retrieval_eval.questions.judgments import JUDGMENTS_KEY, LEVEL_KEY, SCALE_KEY
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems
from retrieval_eval.records.outcome import Form
from retrieval_eval.text import is_blank

#: The relevance level of a set that says none: grade 1 and above is relevant.
DEFAULT_RELEVANCE_LEVEL = 1
#: Problems gathered from one file before reading stops (a file of garbage is one
#: mistake, not ten million to hold and print).
MAX_PROBLEMS = 200


@dataclass(frozen=True, slots=True)
class Judgment:
    """One qrels line, kept: its grade (negatives already 0) and where it was read."""

    grade: int
    line: int


#: topic id -> document id -> judgment, in file order.
Qrels = dict[str, dict[str, Judgment]]
#: topic id -> (text, line), in file order.
Topics = dict[str, tuple[str, int]]


@dataclass(frozen=True, slots=True)
class JudgedQuestion:
    id: str
    question: str
    #: Document id -> grade (>= 0; 0 = judged not relevant), in qrels order.
    judgments: Mapping[str, int]

    def expected(self, level: int) -> tuple[str, ...]:
        """The documents whose grade reaches ``level``: the targets of hits and MRR."""
        return tuple(doc for doc, grade in self.judgments.items() if grade >= level)


@dataclass(frozen=True, slots=True)
class JudgedSet:
    """An imported set with its grades; ``to_question_set`` is the set as scored today."""

    name: str
    questions: tuple[JudgedQuestion, ...]
    description: str = ""
    source: str = ""
    relevance_level: int = DEFAULT_RELEVANCE_LEVEL
    #: Judged topics left out because none of their judgments is relevant.
    skipped_no_relevant: int = 0
    #: Topics of the topics file without any judgment (never questions).
    unjudged_topics: int = 0
    #: question id -> document id -> digest of its text in the corpus given to the import
    #: (``with_digests``); written as ``document_digests``, never scored.
    digests: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    grades: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        seen = {g for q in self.questions for g in q.judgments.values()}
        object.__setattr__(self, "grades", tuple(sorted(seen | {0})))

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def graded(self) -> bool:
        """Whether the set says more than "these documents answer": a grade other than 1,
        a judged-not-relevant document, or a relevance level other than 1."""
        return self.relevance_level != DEFAULT_RELEVANCE_LEVEL or any(
            grade != 1 for q in self.questions for grade in q.judgments.values()
        )

    @property
    def relevant(self) -> int:
        """Judgments at or above the relevance level."""
        return sum(len(q.expected(self.relevance_level)) for q in self.questions)

    @property
    def not_relevant(self) -> int:
        """Judgments below the relevance level (0 included)."""
        return sum(len(q.judgments) for q in self.questions) - self.relevant

    @property
    def nothing_relevant(self) -> int:
        """Questions whose judged documents are all below the relevance level."""
        return sum(1 for q in self.questions if not q.expected(self.relevance_level))

    def to_question_set(self) -> GoldenQuestionSet:
        """The set as a list of expected documents at the relevance level (grades and
        zeros dropped): the labels the scoring of this version reads."""
        level = self.relevance_level
        questions = tuple(
            GoldenQuestion(q.id, q.question, Form.UNLABELLED, q.expected(level))
            for q in self.questions
        )
        return GoldenQuestionSet(self.name, questions, self.description, self.source)


def check_grade(text: str) -> int | str:
    """The grade a qrels column holds (negatives as 0), or the problem with it. An
    integral decimal (``2.0``) is its integer; anything else is not a grade."""
    try:
        value = int(text)
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            return f"grade {text[:40]!r} is not an integer"
        if not number.is_integer():
            return f"grade {text[:40]!r} is not an integer"
        value = int(number)
    return max(value, 0)


def add_judgment(
    qrels: Qrels, topic: str, doc: str, grade: int, line: int, source: str
) -> Problem | None:
    """Record one qrels line; a second, different grade for the pair is a problem."""
    judged = qrels.setdefault(topic, {})
    before = judged.get(doc)
    if before is None:
        judged[doc] = Judgment(grade, line)
    elif before.grade != grade:
        return Problem(
            source,
            line,
            f"document {doc!r} judged {grade} here and {before.grade} at line {before.line}",
            topic,
        )
    return None


def build_judged_set(
    qrels: Qrels,
    topics: Topics,
    *,
    qrels_source: str,
    topics_source: str,
    name: str,
    description: str,
    source: str,
    relevance_level: int = DEFAULT_RELEVANCE_LEVEL,
    skip_no_relevant: bool = False,
) -> JudgedSet:
    """The set the module docstring describes; ``QuestionSetProblems`` naming every
    judged topic without text and every blank text, ``QuestionSetError`` when nothing
    is left."""
    problems = [
        Problem(qrels_source, None, f"topic not in {topics_source}", topic)
        for topic in qrels
        if topic not in topics
    ]
    questions, skipped = [], 0
    for topic, (text, line) in topics.items():
        judged = qrels.get(topic)
        if not judged:
            continue
        if is_blank(text):
            problems.append(Problem(topics_source, line, "empty topic text", topic))
        judgments = {doc: j.grade for doc, j in judged.items()}
        if skip_no_relevant and not any(g >= relevance_level for g in judgments.values()):
            skipped += 1
            continue
        questions.append(JudgedQuestion(topic, text, judgments))
    if problems:
        raise QuestionSetProblems(source, problems[:MAX_PROBLEMS])
    if not questions:
        raise QuestionSetError(f"{qrels_source}: no topic of {topics_source} is judged")
    return JudgedSet(
        name=name,
        questions=tuple(questions),
        description=description,
        source=source,
        relevance_level=relevance_level,
        skipped_no_relevant=skipped,
        unjudged_topics=sum(1 for topic in topics if topic not in qrels),
    )


def write_judged_set(js: JudgedSet, path: Path) -> None:
    """Write ``js`` in the format its suffix names (gzip after ``.gz``), atomically: as a
    hand-made set when it carries no grades, else with ``judgments`` (module docstring)."""
    if not js.graded and not js.digests:
        write_question_set(js.to_question_set(), path)
        return
    fmt = set_format(path)
    if fmt is None:
        raise ValueError(f"{path}: unknown set file type; use .yaml, .yml, .json or .jsonl")
    header: dict[str, Any] = {
        HEADER_KEY: FORMAT_VERSION,
        "name": js.name,
        "description": js.description,
    }
    if js.graded:
        header[LEVEL_KEY] = js.relevance_level
        header[SCALE_KEY] = [min(js.grades), max(js.grades)]
    records = [_record(q, js) for q in js.questions]
    data = _serialized(header, records, fmt).encode("utf-8")
    if path.suffix.lower() == ".gz":
        data = gzip.compress(data, mtime=0)
    write_atomically(path, data)


def _record(q: JudgedQuestion, js: JudgedSet) -> dict[str, Any]:
    record: dict[str, Any] = {"id": q.id, "question": q.question, "form": Form.UNLABELLED.value}
    if js.graded:
        record[JUDGMENTS_KEY] = dict(q.judgments)
    else:
        record["expected_document_ids"] = list(q.expected(js.relevance_level))
    if js.digests.get(q.id):
        record[DIGESTS_KEY] = dict(js.digests[q.id])
    return record


def with_digests(js: JudgedSet, documents: Iterable[CorpusDocument]) -> tuple[JudgedSet, int]:
    """``js`` recording the digest of every judged document's text in ``documents``
    (``corpus.digest``), and how many judgments name a document ``documents`` lacks."""
    wanted = {doc for q in js.questions for doc in q.judgments}
    found = {d.id: document_digest(d.title, d.text) for d in documents if d.id in wanted}
    digests = {q.id: {doc: found[doc] for doc in q.judgments if doc in found} for q in js.questions}
    missing = sum(doc not in found for q in js.questions for doc in q.judgments)
    return replace(js, digests={qid: d for qid, d in digests.items() if d}), missing


def _serialized(header: dict[str, Any], records: Sequence[dict[str, Any]], fmt: str) -> str:
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [header, *records])
    document = {**header, "questions": list(records)}
    if fmt == "json":
        return json.dumps(document, ensure_ascii=False, indent=2) + "\n"
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text: str = yaml.dump(document, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)
    return text
