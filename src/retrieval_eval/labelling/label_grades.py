"""A set file's current labels as grades, for comparing two sets' labels.

A set's labels on a question, as a grade per document: its ``judgments``, its
``expected_document_ids`` (at the set's relevance level when they carry no grade), and a
pooled draft's decided candidates (not relevant: 0, relevant: the relevance level) that
neither names. Only questions that are labels count: in a draft, the ``judged`` ones; a
file without drafts counts every question. A YAML file is read as it is written (so a
draft half judged still compares); any other set file through the set model, which
holds judged sets only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.agreement import Agreement, Grades, compare, judge_grades
from retrieval_eval.labelling.document import load_document
from retrieval_eval.questions.formats import set_format
from retrieval_eval.questions.judgments import JUDGMENTS_KEY, header_level, read_grade
from retrieval_eval.questions.labelling import LABELLING_KEY, JudgementState


def label_grades(path: Path) -> Grades:
    """(question id, document id) -> grade of every label in the set file ``path``."""
    if set_format(path) == "yaml" and path.suffix.lower() != ".gz":
        document, _ = load_document(path)
        level = header_level(document)
        grades: Grades = {}
        for question in document["questions"]:
            grades.update(question_grades(question, level))
        return grades
    from retrieval_eval.questions.loading import load_set_file

    return {
        (q.id, doc): grade for q in load_set_file(path).questions for doc, grade in q.grades.items()
    }


def question_grades(question: Any, level: int) -> Grades:
    """One question mapping's labels (none when it is a draft not judged yet)."""
    if not isinstance(question, dict) or "id" not in question:
        return {}
    labelling = question.get(LABELLING_KEY)
    if isinstance(labelling, dict) and labelling.get("state") != JudgementState.JUDGED.value:
        return {}
    qid = str(question["id"])
    found: dict[str, int] = {}
    for doc, value in (question.get(JUDGMENTS_KEY) or {}).items():
        grade = read_grade(value)
        if grade is not None:
            found[str(doc)] = grade
    for doc in question.get("expected_document_ids") or []:
        found.setdefault(str(doc), level)
    candidates = labelling.get("candidates") or [] if isinstance(labelling, dict) else []
    for candidate in candidates:
        decided = candidate.get("relevant")
        if isinstance(decided, bool):
            found.setdefault(str(candidate["document_id"]), level if decided else 0)
    return {(qid, doc): grade for doc, grade in found.items()}


def agreement_with_reference(path: Path, reference: Path, judge: str | None = None) -> Agreement:
    """Cohen's kappa of ``path``'s labels (or of its judge ``judge``'s latest grades)
    against the labels of the set file ``reference``, on what both judged."""
    if judge is None:
        first, name = label_grades(path), f"{path.name} labels"
    else:
        document, _ = load_document(path)
        grades = judge_grades(document)
        if judge not in grades:
            found = ", ".join(sorted(grades)) or "none"
            raise InputError(f"{path}: no judgement by {judge} (judges in the file: {found})")
        first, name = grades[judge], judge
    second = label_grades(reference)
    if not first.keys() & second.keys():
        raise InputError(
            f"{path} and {reference}: no question and document both judged: nothing to compare"
        )
    return compare(first, second, (name, f"{reference.name} labels"))
