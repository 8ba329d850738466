"""Grading a draft's candidates with a model: advice kept apart from the labels.

Every candidate no person has decided and this model has not graded yet is shown to the
model with its question and document text; the answer must be ``{"grade": N, "reason":
"..."}`` with N on the scale, anything else is an ``off-format`` failure of that
candidate (counted, never a "not relevant"). The grades go into the question's history as
one entry by the model's source (``llm:<model>@<prompt digest>``), with ``grades``,
``reasons`` and ``digests`` (the text each grade was made on, ``corpus.digest``) beside
the usual ``relevant`` / ``not_relevant`` (grade at or above the relevance level).
Nothing else changes: a candidate's decision and the question's state stay a person's, so
model grades are drafts until ``sets agreement --accept`` finds the model agrees with the
people well enough to take them as labels.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from retrieval_eval.corpus.digest import document_digest
from retrieval_eval.labelling.document import load_document, update_document
from retrieval_eval.labelling.llm.calls import ModelCalls, Tally, ask_and_read
from retrieval_eval.labelling.llm.prompts import PromptTemplate
from retrieval_eval.questions.corpus import CorpusDocument
from retrieval_eval.questions.judgments import LEVEL_KEY, SCALE_KEY
from retrieval_eval.questions.labelling import LABELLING_KEY
from retrieval_eval.retrievers.chat import ChatRequest, messages

#: The scale a set without one of its own is graded on.
BINARY_SCALE = {0: "the document does not answer the question", 1: "the document answers it"}


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    model: str
    scale: Mapping[int, str] = field(default_factory=lambda: dict(BINARY_SCALE))
    relevance_level: int = 1
    max_document_chars: int = 4000
    temperature: float = 0.0


@dataclass(frozen=True, slots=True)
class Pending:
    question_id: str
    question: str
    document_id: str


@dataclass
class JudgeReport(Tally):
    """``failures``, ``not_asked`` and ``stopped_by`` count candidates."""

    candidates: int = 0
    graded: int = 0
    missing_documents: int = 0


def pending_candidates(document: Any, source: str) -> list[Pending]:
    """Candidates without a person's decision that ``source`` has not graded yet."""
    found = []
    for question in document.get("questions") or []:
        labelling = question.get(LABELLING_KEY) or {}
        graded = set()
        for entry in labelling.get("history") or []:
            if entry.get("by") == source:
                graded |= set((entry.get("grades") or {}).keys())
        for candidate in labelling.get("candidates") or []:
            doc = str(candidate["document_id"])
            if candidate.get("relevant") is None and doc not in graded:
                found.append(Pending(str(question["id"]), str(question["question"]), doc))
    return found


def parse_grade(content: str, scale: Mapping[int, str]) -> tuple[int, str]:
    """(grade, reason) of an answer; ``ValueError`` for anything but the asked shape."""
    data = json.loads(content)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    grade, reason = data.get("grade"), data.get("reason", "")
    if isinstance(grade, bool) or not isinstance(grade, int) or grade not in scale:
        raise ValueError(f"grade {grade!r} is not on the scale {sorted(scale)}")
    if not isinstance(reason, str):
        raise ValueError("reason must be text")
    return grade, " ".join(reason.split())[:300]


def scale_text(scale: Mapping[int, str]) -> str:
    return "\n".join(f"{grade}: {meaning}" for grade, meaning in sorted(scale.items()))


def grading_prompt(
    template: PromptTemplate, item: Pending, doc: CorpusDocument, options: JudgeOptions
) -> tuple[str, str]:
    """The (system, user) messages that ask for one candidate's grade."""
    return template.render(
        question=item.question, title=doc.title or "(untitled)",
        text=doc.text[: options.max_document_chars], scale=scale_text(options.scale),
    )  # fmt: skip


async def grade_all(
    calls: ModelCalls,
    template: PromptTemplate,
    pending: Sequence[Pending],
    documents: Mapping[str, CorpusDocument],
    options: JudgeOptions,
    report: JudgeReport,
) -> dict[tuple[str, str], tuple[int, str]]:
    grades: dict[tuple[str, str], tuple[int, str]] = {}

    async def one(item: Pending) -> None:
        doc = documents.get(item.document_id)
        if doc is None:
            report.missing_documents += 1
            return
        system, user = grading_prompt(template, item, doc, options)
        request = ChatRequest(options.model, messages(system, user), options.temperature)
        grade = await ask_and_read(
            calls, request, lambda text: parse_grade(text, options.scale), report
        )
        if grade is not None:
            grades[(item.question_id, item.document_id)] = grade

    report.candidates = len(pending)
    await asyncio.gather(*(one(p) for p in pending))
    report.graded = len(grades)
    return grades


def graded_digests(
    grades: Mapping[tuple[str, str], object], documents: Mapping[str, CorpusDocument]
) -> dict[tuple[str, str], str]:
    """The digest of the text behind each grade: the corpus document the model was shown
    (so ``sets lint --corpus`` can tell when it changed since)."""
    return {
        (qid, doc): document_digest(documents[doc].title, documents[doc].text)
        for qid, doc in grades
        if doc in documents
    }


def record_grades(
    path: Path,
    source: str,
    grades: Mapping[tuple[str, str], tuple[int, str]],
    relevance_level: int,
    at: datetime | None = None,
    digests: Mapping[tuple[str, str], str] | None = None,
) -> None:
    """One history entry by ``source`` per question it graded, under the file lock;
    ``digests``: the text each grade was made on (``graded_digests``)."""
    by_question: dict[str, dict[str, tuple[int, str]]] = {}
    texts: dict[str, dict[str, str]] = {}
    for (qid, doc), value in grades.items():
        by_question.setdefault(qid, {})[doc] = value
        if digests and (qid, doc) in digests:
            texts.setdefault(qid, {})[doc] = digests[(qid, doc)]
    moment = (at or datetime.now(UTC)).isoformat(timespec="seconds")

    def change(document: Any) -> None:
        for question in document["questions"]:
            mine = by_question.get(str(question["id"]))
            if not mine:
                continue
            labelling = question.setdefault(LABELLING_KEY, CommentedMap())
            history = labelling.get("history")
            if history is None:
                history = labelling["history"] = CommentedSeq()
            entry = _entry(source, moment, mine, relevance_level)
            if texts.get(str(question["id"])):  # block style: a digest is 71 characters
                entry["digests"] = CommentedMap(sorted(texts[str(question["id"])].items()))
            history.append(entry)

    update_document(path, change)


def _entry(
    source: str, at: str, grades: Mapping[str, tuple[int, str]], relevance_level: int
) -> CommentedMap:
    entry = CommentedMap()
    entry["by"] = source
    entry["at"] = at
    for key, keep in (("relevant", True), ("not_relevant", False)):
        ids = CommentedSeq(
            sorted(d for d, (g, _) in grades.items() if (g >= relevance_level) is keep)
        )
        ids.fa.set_flow_style()
        entry[key] = ids
    entry["nothing_answers"] = False
    flow = CommentedMap({d: g for d, (g, _) in sorted(grades.items())})
    flow.fa.set_flow_style()
    entry["grades"] = flow
    entry["reasons"] = CommentedMap({d: r for d, (_, r) in sorted(grades.items())})
    return entry


def read_pending(path: Path, source: str) -> list[Pending]:
    document, _ = load_document(path)
    return pending_candidates(document, source)


def set_scale(path: Path, options: JudgeOptions) -> JudgeOptions:
    """``options`` on the draft's own grade scale and relevance level, when it declares
    them (``grade_scale: [low, high]``, ``relevance_level``): a set graded 0-3 is graded
    0-3 by the model too."""
    document, _ = load_document(path)
    scale, level = document.get(SCALE_KEY), document.get(LEVEL_KEY)
    if not (isinstance(scale, list) and len(scale) == 2 and all(map(_integer, scale))):
        return options
    low, high = (int(g) for g in scale)
    level = int(level) if _integer(level) else options.relevance_level
    grades = {g: _meaning(g, low, high, level) for g in range(low, high + 1)}
    return replace(options, scale=grades, relevance_level=level)


def _integer(value: object) -> bool:
    """An integer as YAML reads it (ruamel's round trip gives ``ScalarInt`` for some)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _meaning(grade: int, low: int, high: int, level: int) -> str:
    if grade < level:
        return "does not answer the question" if grade == low else "related, but does not answer it"
    if grade == high:
        return "answers the question fully"
    return "answers the question in part"
