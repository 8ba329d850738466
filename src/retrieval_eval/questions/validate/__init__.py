"""Checking a parsed set and building the model: every problem at once, or nothing.

The rules live with the part they check: ``header`` (set keys, version, name, grading),
``fields`` (one question's fields), ``labels`` (expected ids and judgments, the corpus),
``storable`` (texts the run store could not take); this module walks the set (ids
unique) and builds it. ``keys`` lists the keys a file may use: unknown keys are errors.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.formats import RawSet
from retrieval_eval.questions.labelling import unjudged_message
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems
from retrieval_eval.questions.validate.fields import check_question
from retrieval_eval.questions.validate.findings import Findings, kind, label_of
from retrieval_eval.questions.validate.header import check_header
from retrieval_eval.questions.validate.labels import check_in_corpus
from retrieval_eval.questions.validate.storable import check_storable, flaw
from retrieval_eval.questions.wellformed import well_formed


def _questions(f: Findings) -> Sequence[GoldenQuestion]:
    """The set's questions, each checked, with ids unique across the set."""
    items = f.raw.questions
    if "" in f.raw.header:
        return []  # the top level is not a set at all; already reported
    if items is None:
        if not f.raw.problems:
            f.add_header("questions", "no 'questions' list")
        return []
    if not isinstance(items, list | CompactQuestions):
        f.add_header("questions", f"'questions' must be a list, got {kind(items)}")
        return []
    if not items and not f.raw.problems:
        f.add_header("questions", "the set has no questions")
    if isinstance(items, CompactQuestions):  # every JSONL line was plainly valid
        return _compact(f, items)
    built: list[GoldenQuestion] = []
    first_index: dict[str, int] = {}
    careful = f.corpus is not None or bool(f.raw.duplicate_keys)
    built_by_reader = f.raw.built
    for index, data in enumerate(items):
        # A plainly valid JSONL line was built while reading.
        prebuilt = built_by_reader and type(data) is GoldenQuestion
        question = data if prebuilt else None if careful else well_formed(data, f.level)
        label = question.id if question is not None else label_of(data)
        if label is not None:
            earlier = first_index.setdefault(label, index)
            if earlier != index:
                f.duplicate_id(index, label, earlier)
        if prebuilt:
            check_in_corpus(f, index, label, data.expected_document_ids, data.judgments)
        elif question is None:
            question = check_question(f, index, data, label)
        if question is not None:
            built.append(question)
    return built


def _compact(f: Findings, questions: CompactQuestions) -> CompactQuestions:
    """The checks ``questions`` leaves to the whole set: ids unique, labels in the
    corpus; without building every question."""
    for row, first in questions.duplicates():
        f.duplicate_id(row, questions.id_of(row), first)
    if f.corpus is not None:
        for index, q in enumerate(questions):
            check_in_corpus(f, index, q.id, q.expected_document_ids, q.judgments)
    return questions


def check_raw_set(
    raw: RawSet, *, corpus: Set[str] | None = None, corpus_name: str = ""
) -> tuple[GoldenQuestionSet | None, list[Problem]]:
    """Build the set from ``raw``; ``None`` and every problem when anything is wrong.

    With ``corpus`` (a set of document ids) expected ids missing from it are problems too.
    """
    f = Findings(raw, corpus, corpus_name)
    name, description = check_header(f)
    questions = _questions(f)
    if f.unjudged:
        f.problems.append(Problem(raw.source, None, unjudged_message(f.unjudged)))
    if not f.problems:
        compact = CompactQuestions.of(questions)
        gists = compact.answer_gists()
        plain = not any(map(flaw, [name, description, *gists])) and not compact.holds("\x00")
        if plain:
            try:  # the fingerprint encodes every scored text: lone surrogates fail here
                qs = GoldenQuestionSet(
                    name, compact, description, raw.source,
                    relevance_level=f.level, grade_scale=f.scale,
                )  # fmt: skip
                return qs, []
            except UnicodeEncodeError:
                pass
        check_storable(f, name, description, compact)
    return None, sorted(f.problems, key=lambda p: p.line or 0)


def build_set(raw: RawSet) -> GoldenQuestionSet:
    """The set, or ``QuestionSetProblems`` listing every problem (nothing half-loaded)."""
    qs, problems = check_raw_set(raw)
    if qs is None:
        raise QuestionSetProblems(raw.source, problems)
    return qs
