"""Drafting questions with a model: sampled documents in, a draft set out.

1. Sample: ``sample`` documents of the corpus (those with text), drawn with ``seed``;
   with ``strata`` (a corpus field), the strata take turns so each is represented.
2. Ask: one chat request per document for ``match`` MATCH and ``gap`` GAP questions, in
   the JSON shape ``{"questions": [{"form": ..., "question": ...}]}``; any other answer is
   an ``off-format`` failure of that document, never a question.
3. Check: every question's vocabulary overlap with its document is measured as
   ``sets lint`` measures it; a GAP question that overlaps like a MATCH one (or a MATCH one
   that does not) is relabelled, or dropped with ``on_mismatch="drop"``. A question that
   asks what an earlier one asks (``sets lint``'s duplicate rule) is dropped.
4. Write: a draft set (the labelling format of ``sets draft``): each question unjudged,
   its source document its first expected document and a relevant candidate, with the
   label's source (``llm:<model>@<prompt digest>``) and the digest of the document text it
   was made from. Loading refuses a draft: nothing generated gates before a person judged it.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from retrieval_eval.corpus.digest import document_digest as digest_of
from retrieval_eval.errors import InputError
from retrieval_eval.labelling.llm.calls import ModelCalls, Tally, ask_and_read
from retrieval_eval.labelling.llm.prompts import PromptTemplate
from retrieval_eval.questions.corpus import CorpusDocument
from retrieval_eval.questions.formats import read_text
from retrieval_eval.questions.lint.analyzer import TermAnalyzer
from retrieval_eval.questions.lint.duplicates import question_key
from retrieval_eval.questions.lint.options import DEFAULT_MATCH_CUTOFF
from retrieval_eval.questions.lint.overlap import OverlapMeter, suggested_form
from retrieval_eval.records.outcome import Form
from retrieval_eval.retrievers.chat import ChatRequest, messages


@dataclass(frozen=True, slots=True)
class GenerateOptions:
    model: str
    sample: int
    seed: int
    match: int = 1
    gap: int = 1
    strata: str | None = None
    max_document_chars: int = 4000
    temperature: float = 0.0
    cutoff: float = DEFAULT_MATCH_CUTOFF
    #: ``relabel`` a question whose measured form differs, or ``drop`` it.
    on_mismatch: str = "relabel"

    def __post_init__(self) -> None:
        if self.sample < 1:
            raise InputError(f"--sample must be at least 1, got {self.sample}")
        if self.match < 0 or self.gap < 0 or self.match + self.gap == 0:
            raise InputError("ask for at least one question a document (--match, --gap)")
        if self.on_mismatch not in ("relabel", "drop"):
            raise InputError(f"--on-form-mismatch must be relabel or drop, not {self.on_mismatch}")


@dataclass(frozen=True, slots=True)
class GeneratedQuestion:
    id: str
    question: str
    #: The form after the check; ``asked_form`` what the model was asked for.
    form: Form
    asked_form: Form
    overlap: float
    document: CorpusDocument
    document_digest: str


@dataclass
class GenerateReport(Tally):
    """``failures``, ``not_asked`` and ``stopped_by`` count documents."""

    documents: int = 0
    #: Documents sampled per stratum (empty without strata).
    strata: dict[str, int] = field(default_factory=dict)
    questions: list[GeneratedQuestion] = field(default_factory=list)
    relabelled: int = 0
    dropped_mismatch: int = 0
    dropped_duplicates: int = 0
    #: When the job ran (the time of the generator's claims in the draft).
    at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))


def document_digest(document: CorpusDocument) -> str:
    """The digest of the text a label is made from (``corpus.digest``), to tell later
    whether the document changed since."""
    return digest_of(document.title, document.text)


def label_source(model: str, template: PromptTemplate) -> str:
    return f"llm:{model}@{template.digest}"


def sample_documents(
    documents: Sequence[CorpusDocument],
    size: int,
    seed: int,
    strata: Mapping[str, str] | None = None,
) -> tuple[list[CorpusDocument], dict[str, int]]:
    """``size`` documents with text, drawn with ``seed``; with ``strata`` (id -> stratum)
    the strata, in name order, take turns, so a small stratum is not left out."""
    usable = [d for d in documents if d.text.strip()]
    rng = random.Random(seed)
    if strata is None:
        return rng.sample(usable, min(size, len(usable))), {}
    groups: dict[str, list[CorpusDocument]] = defaultdict(list)
    for document in usable:
        groups[strata.get(document.id, "")].append(document)
    for name in sorted(groups):
        rng.shuffle(groups[name])
    chosen: list[CorpusDocument] = []
    counts: Counter[str] = Counter()
    while len(chosen) < size and any(groups.values()):
        for name in sorted(groups):
            if groups[name] and len(chosen) < size:
                chosen.append(groups[name].pop())
                counts[name] += 1
    return chosen, dict(sorted(counts.items()))


def read_strata(corpus: Path, key: str) -> dict[str, str]:
    """Document id -> the value of ``key`` in its corpus record (``metadata.KEY`` reaches
    into the BEIR ``metadata`` mapping); a document without it is in stratum ``""``."""
    path = key.split(".")
    found: dict[str, str] = {}
    for number, line in enumerate(read_text(corpus, limit=None).split("\n"), 1):
        if not line.strip():
            continue
        try:
            record: Any = json.loads(line)
        except ValueError as e:
            raise InputError(f"{corpus}:{number}: invalid JSON in corpus: {e}") from e
        doc_id = str(record.get("_id", record.get("id", ""))) if isinstance(record, dict) else ""
        value: Any = record
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        found[doc_id] = "" if value is None else str(value)
    return found


def parse_questions(content: str, match: int, gap: int) -> list[tuple[Form, str]]:
    """The questions of an answer, at most ``match`` MATCH and ``gap`` GAP ones; ``ValueError``
    for anything but the asked JSON shape."""
    data = json.loads(content)
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise ValueError('not an object with a "questions" list')
    wanted = {Form.MATCH: match, Form.GAP: gap}
    kept: list[tuple[Form, str]] = []
    for item in data["questions"]:
        if not isinstance(item, dict):
            raise ValueError("a question is not an object")
        form, text = item.get("form"), item.get("question")
        if form not in ("MATCH", "GAP") or not isinstance(text, str) or not text.strip():
            raise ValueError('a question needs "form" MATCH or GAP and a "question" text')
        if wanted[Form(form)] > 0:
            wanted[Form(form)] -= 1
            kept.append((Form(form), " ".join(text.split())))
    if not kept:
        raise ValueError("no question of the forms asked for")
    return kept


async def ask_all(
    calls: ModelCalls,
    template: PromptTemplate,
    documents: Sequence[CorpusDocument],
    options: GenerateOptions,
    report: GenerateReport,
) -> dict[str, list[tuple[Form, str]]]:
    """Each document's questions (documents that failed are counted in ``report``)."""
    answers: dict[str, list[tuple[Form, str]]] = {}

    async def one(document: CorpusDocument) -> None:
        system, user = template.render(
            title=document.title or "(untitled)",
            text=document.text[: options.max_document_chars],
            match_count=options.match,
            gap_count=options.gap,
        )
        request = ChatRequest(
            options.model, messages(system, user), temperature=options.temperature,
            seed=options.seed,
        )  # fmt: skip
        found = await ask_and_read(
            calls, request, lambda text: parse_questions(text, options.match, options.gap), report
        )
        if found is not None:
            answers[document.id] = found

    await asyncio.gather(*(one(d) for d in documents))
    return answers


def check_questions(
    documents: Sequence[CorpusDocument],
    answers: Mapping[str, list[tuple[Form, str]]],
    meter: OverlapMeter,
    options: GenerateOptions,
    report: GenerateReport,
    taken: set[tuple[bool, frozenset[str]]] | None = None,
) -> None:
    """Step 3 of the module docstring, in document order (so the output is stable)."""
    analyzer: TermAnalyzer = meter.analyzer
    seen = set() if taken is None else set(taken)
    ids: set[str] = set()
    for document in documents:
        digest = document_digest(document)
        for form, text in answers.get(document.id, []):
            overlap = meter.overlap(text, [f"{document.title} {document.text}"])
            measured = suggested_form(overlap, options.cutoff)
            if measured is not form:
                if options.on_mismatch == "drop":
                    report.dropped_mismatch += 1
                    continue
                report.relabelled += 1
            key = question_key(text, analyzer)
            if key in seen:
                report.dropped_duplicates += 1
                continue
            seen.add(key)
            qid = _question_id(document.id, measured, ids)
            report.questions.append(
                GeneratedQuestion(qid, text, measured, form, overlap, document, digest)
            )


def _question_id(document_id: str, form: Form, taken: set[str]) -> str:
    stem = f"gen-{document_id}-{'m' if form is Form.MATCH else 'g'}"
    number = 1
    while f"{stem}{number}" in taken:
        number += 1
    taken.add(f"{stem}{number}")
    return f"{stem}{number}"
