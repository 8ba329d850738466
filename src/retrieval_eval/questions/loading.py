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
from pathlib import Path
from typing import TYPE_CHECKING

from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.formats import set_format
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.questions.problems import Problem, QuestionSetProblems
from retrieval_eval.questions.reading import read_set_file
from retrieval_eval.questions.validate import build_set, check_raw_set

if TYPE_CHECKING:  # providers (entry points) load when a set is named, not given as a file
    from retrieval_eval.questions.registry import QuestionSetRegistry


def load_question_set(source: str | Path) -> GoldenQuestionSet:
    """One set from a file, a one-set directory or a registered name.

    Raises ``QuestionSetError`` (listing every problem), ``UnknownNameError`` (with
    suggestions) or ``PluginError`` (a provider failed, named by its entry point).
    """
    path = as_path(source)
    if path is None:
        # the provider registry (entry points) only for a registered name
        from retrieval_eval.questions.registry import QuestionSetRegistry

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
    path = as_path(source)
    if path is None:
        # the provider registry (entry points) only for a registered name
        from retrieval_eval.questions.registry import QuestionSetRegistry

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


def _set_names(registry: QuestionSetRegistry) -> set[str]:
    return {info.name for info in registry.list_sets()[0]}


def as_path(source: str | Path) -> Path | None:
    """``source`` as a path when it is or looks like one; None for a registered name."""
    if isinstance(source, Path):
        return source
    if os.path.exists(source):
        return Path(source)
    if "/" in source or os.sep in source or set_format(Path(source)) is not None:
        return Path(source)
    return None
