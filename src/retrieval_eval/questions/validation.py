"""Check set files and registered sets without raising (``reval sets validate``): every
problem is returned, with the source it belongs to. Apart from ``loading`` so that
loading a set for an evaluation does not build what only checking needs."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_eval.errors import InputError
from retrieval_eval.questions.loading import as_path, load_question_sets, set_files
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems
from retrieval_eval.questions.reading import read_set_file
from retrieval_eval.questions.validate import check_raw_set


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """One checked set file (or registered set): the set when valid, else its problems."""

    source: str
    question_set: GoldenQuestionSet | None
    problems: list[Problem] = field(default_factory=list)


def validate_source(
    source: str | Path, *, corpus: Set[str] | None = None, corpus_name: str = ""
) -> list[ValidationResult]:
    """Check a file, every file of a directory, or a registered set (or provider); problems
    (including unknown names and failing providers) are returned, not raised."""
    path = as_path(source)
    if path is None:
        try:
            sets = load_question_sets(str(source))
        except QuestionSetProblems as e:
            return [ValidationResult(str(source), None, e.details)]
        except InputError as e:
            return [ValidationResult(str(source), None, [Problem(str(source), None, str(e))])]
        return [_corpus_only(qs, corpus, corpus_name) for qs in sets]
    if not path.exists():
        return [ValidationResult(str(path), None, [Problem(str(path), None, "no such file")])]
    files = set_files(path) if path.is_dir() else [path]
    if not files:
        problem = Problem(str(path), None, "no set files (*.yaml, *.yml, *.json, *.jsonl)")
        return [ValidationResult(str(path), None, [problem])]
    results = []
    for file in files:
        qs, problems = check_raw_set(read_set_file(file), corpus=corpus, corpus_name=corpus_name)
        results.append(ValidationResult(str(file), qs, problems))
    return results


def _corpus_only(
    qs: GoldenQuestionSet, corpus: Set[str] | None, corpus_name: str
) -> ValidationResult:
    problems = []
    for q in qs.questions if corpus is not None else ():
        for doc in q.expected_document_ids:
            if doc not in corpus:  # type: ignore[operator]
                message = f"expected document {doc!r} is not in the corpus {corpus_name}"
                problems.append(Problem(qs.source, None, message, q.id))
    return ValidationResult(qs.name, None if problems else qs, problems)
