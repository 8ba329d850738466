"""Reading the recorded digests of a set file, apart from loading it.

Loading a set keeps only what scoring needs (a big JSONL set is held by column, without
provenance), so the checks that compare digests with a corpus read them here, once, and
only when they have a corpus to compare with.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from retrieval_eval.corpus.digest import is_digest
from retrieval_eval.errors import InputError
from retrieval_eval.questions.bounded import numbered_lines, open_set_file
from retrieval_eval.questions.digests import DIGESTS_KEY
from retrieval_eval.questions.formats import HEADER_KEY, set_format
from retrieval_eval.questions.loading import as_path
from retrieval_eval.questions.reading import read_set_file

#: question id -> document id -> digest, for the questions that record any.
SetDigests = dict[str, dict[str, str]]


def set_path(source: str | Path) -> Path | None:
    """The set file ``source`` names, when it names one (not a directory or a set name)."""
    path = as_path(source)
    return path if path is not None and path.is_file() and set_format(path) else None


def read_set_digests(path: Path) -> SetDigests:
    """Every recorded digest of the set file at ``path``; ``InputError`` naming the file
    when it cannot be read (load the set first: that names any other problem)."""
    if set_format(path) == "jsonl":
        return _jsonl_digests(path)
    raw = read_set_file(path)
    if raw.problems:
        raise InputError(f"{path}: {raw.problems[0].message}")
    questions = raw.questions if isinstance(raw.questions, list) else []
    return _collect(q for q in questions if isinstance(q, dict))


def _jsonl_digests(path: Path) -> SetDigests:
    """The JSONL reader builds plainly valid lines without their digests: read them apart,
    only the lines that hold the key (a cheap text test first)."""
    found = []
    try:
        with open_set_file(path) as f:
            for _number, line in numbered_lines(f, path):
                if DIGESTS_KEY in line:
                    record = json.loads(line)
                    if isinstance(record, dict) and HEADER_KEY not in record:
                        found.append(record)
    except (OSError, EOFError, ValueError) as e:
        raise InputError(f"{path}: cannot read digests: {e}") from e
    return _collect(found)


def _collect(questions: Any) -> SetDigests:
    digests: SetDigests = {}
    for q in questions:
        value = q.get(DIGESTS_KEY)
        if isinstance(value, dict) and isinstance(q.get("id"), str):
            found = {str(d): str(g) for d, g in value.items() if is_digest(g)}
            if found:
                digests[q["id"]] = found
    return digests
