"""Load question sets by file, directory or registered name: all or nothing.

A source is resolved in this order: an existing path (file or directory); a string that
looks like a path (contains ``/`` or ends in a set suffix) but does not exist is an error;
anything else is a registered set name (``SET`` or ``PROVIDER:SET``) or, for
``load_question_sets``, a provider name (all of its sets).

A directory yields one set per set file directly inside it (``*.yaml``, ``*.yml``,
``*.json``, ``*.jsonl``, each optionally ``.gz``; hidden files and other files ignored;
not recursive), in file-name order; two files may not declare the same set name.
"""

from __future__ import annotations

import os
from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_eval.errors import InputError, QuestionSetError
from retrieval_eval.questions.formats import read_set_file, set_format
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems
from retrieval_eval.questions.registry import QuestionSetRegistry
from retrieval_eval.questions.validate import build_set, check_raw_set


def load_question_set(source: str | Path) -> GoldenQuestionSet:
    """One set from a file, a one-set directory or a registered name.

    Raises ``QuestionSetError`` (listing every problem), ``UnknownNameError`` (with
    suggestions) or ``PluginError`` (a provider failed, named by its entry point).
    """
    path = _as_path(source)
    if path is None:
        return QuestionSetRegistry().load(str(source))
    if not path.is_dir():
        return load_set_file(path)
    sets = load_question_sets(path)
    if len(sets) != 1:
        names = ", ".join(s.name for s in sets)
        raise QuestionSetError(f"{path}: holds {len(sets)} sets ({names}); name one file")
    return sets[0]


def load_question_sets(source: str | Path) -> list[GoldenQuestionSet]:
    """Every set of a directory or a provider, or the one set of a file or name."""
    path = _as_path(source)
    if path is None:
        registry = QuestionSetRegistry()
        name = str(source)
        if name in registry.provider_names() and name not in _set_names(registry):
            return [registry.load(f"{name}:{s}") for s in registry.sets_of(name)]
        return [registry.load(name)]
    if not path.is_dir():
        return [load_set_file(path)]
    files = set_files(path)
    if not files:
        raise QuestionSetError(
            f"{path}: no set files (*.yaml, *.yml, *.json, *.jsonl, optionally .gz)"
        )
    sets: list[GoldenQuestionSet] = []
    problems: list[Problem] = []
    first_file: dict[str, str] = {}
    for file in files:
        qs, found = check_raw_set(read_set_file(file))
        problems.extend(found)
        if qs is None:
            continue
        earlier = first_file.setdefault(qs.name, str(file))
        if earlier != str(file):
            problems.append(
                Problem(str(file), None, f"set name {qs.name!r} also used by {earlier}")
            )
        sets.append(qs)
    if problems:
        raise QuestionSetProblems(str(path), problems)
    return sets


def load_set_file(path: Path) -> GoldenQuestionSet:
    """One set file; ``QuestionSetProblems`` naming file, line and question id on any problem."""
    if not path.exists():
        raise QuestionSetError(f"{path}: no such file")
    return build_set(read_set_file(path))


def set_files(directory: Path) -> list[Path]:
    """The set files directly inside ``directory``, in name order."""
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_file() and not p.name.startswith(".") and set_format(p) is not None
    )


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
    path = _as_path(source)
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


def _set_names(registry: QuestionSetRegistry) -> set[str]:
    return {info.name for info in registry.list_sets()[0]}


def _as_path(source: str | Path) -> Path | None:
    if isinstance(source, Path):
        return source
    if os.path.exists(source):
        return Path(source)
    if "/" in source or os.sep in source or set_format(Path(source)) is not None:
        return Path(source)
    return None
