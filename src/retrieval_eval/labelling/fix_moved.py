"""Relabelling moved documents in a set file: the judged text kept, its new id written.

``fix_moved`` applies ``DriftReport.moved()`` (question id -> old id -> new id) to every
place a question names the old id: ``expected_document_ids``, ``judgments``,
``document_digests`` and a draft's candidates (the history keeps what was judged, under
the id of the day). Nothing else changes:

- YAML (``.yaml.gz`` too) is rewritten round-trip under the set's lock
  (``labelling.document``): comments, key order, quoting, blank lines and the file's
  sequence indentation stay, and a renamed key keeps its place;
- JSON keeps its key order (it holds no comments) and is written with two-space indents;
- JSONL rewrites only the lines of questions that change; every other line keeps its bytes;
- a ``.gz`` file is written back gzipped; every file is replaced atomically.

The set's fingerprint changes as its labels do (the ids changed); scores do not, since
the same text is a target under its new id.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from retrieval_eval.atomic import write_atomically
from retrieval_eval.errors import InputError
from retrieval_eval.labelling.document import dump_document, layout_of, locked, parse_document
from retrieval_eval.questions.digests import DIGESTS_KEY
from retrieval_eval.questions.formats import read_text, set_format
from retrieval_eval.questions.judgments import JUDGMENTS_KEY
from retrieval_eval.questions.labelling import LABELLING_KEY

#: question id -> old document id -> new document id.
Moves = Mapping[str, Mapping[str, str]]


def fix_moved(path: Path, moves: Moves) -> int:
    """Relabel every move in ``moves`` in the set file ``path``; the labels changed."""
    if not moves:
        return 0
    fmt = set_format(path)
    if fmt == "yaml":
        return _fix_yaml(path, moves)
    changed, text = (_fix_jsonl if fmt == "jsonl" else _fix_json)(_read(path), moves)
    _write(path, text)
    return changed


def _read(path: Path) -> str:
    try:
        return read_text(path, limit=None)  # gunzipped by suffix
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from e


def _write(path: Path, text: str) -> None:
    """Replace the file atomically, gzipped again when its suffix says so."""
    data = text.encode("utf-8")
    write_atomically(path, gzip.compress(data, mtime=0) if path.suffix.lower() == ".gz" else data)


def _fix_yaml(path: Path, moves: Moves) -> int:
    """Under the set's lock, round-trip (``.yaml.gz`` too), in the file's own sequence
    layout."""
    with locked(path):
        text = _read(path)
        document = parse_document(text, path)
        changed = _fix_all(document["questions"], moves)
        if changed:
            _write(path, dump_document(document, layout_of(text)))
    return changed


def _fix_json(text: str, moves: Moves) -> tuple[int, str]:
    document = json.loads(text)
    questions = document if isinstance(document, list) else document["questions"]
    changed = _fix_all(questions, moves)
    return changed, json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _fix_jsonl(text: str, moves: Moves) -> tuple[int, str]:
    changed = 0
    lines = text.split("\n")
    for number, line in enumerate(lines):
        if not line.strip() or not any(old in line for m in moves.values() for old in m):
            continue
        record = json.loads(line)
        if isinstance(record, dict) and record.get("id") in moves:
            changed += fix_question(record, moves[record["id"]])
            lines[number] = json.dumps(record, ensure_ascii=False)
    return changed, "\n".join(lines)


def _fix_all(questions: Any, moves: Moves) -> int:
    return sum(
        fix_question(q, moves[q["id"]])
        for q in questions
        if isinstance(q, dict) and q.get("id") in moves
    )


def fix_question(question: MutableMapping[str, Any], moves: Mapping[str, str]) -> int:
    """Relabel one question mapping in place; the labels changed (an old id whose new id
    the question already names is left as it is)."""
    named = {*(question.get("expected_document_ids") or ()), *(question.get(JUDGMENTS_KEY) or {})}
    changed = 0
    for old, new in moves.items():
        if old not in named or new in named:
            continue
        expected = question.get("expected_document_ids") or []
        for i, doc in enumerate(expected):
            if doc == old:
                expected[i] = new
        for key in (JUDGMENTS_KEY, DIGESTS_KEY):
            if old in (question.get(key) or {}):
                _rename(question[key], old, new)
        for candidate in (question.get(LABELLING_KEY) or {}).get("candidates") or []:
            if candidate.get("document_id") == old:
                candidate["document_id"] = new
        named = (named - {old}) | {new}
        changed += 1
    return changed


def _rename(mapping: MutableMapping[str, Any], old: str, new: str) -> None:
    """Rename a key where it stands (and keep a round-trip key's comment with it)."""
    items = list(mapping.items())
    position = [key for key, _ in items].index(old)
    if isinstance(mapping, CommentedMap):
        comment = mapping.ca.items.pop(old, None)
        value = mapping.pop(old)
        mapping.insert(position, new, value)
        if comment is not None:
            mapping.ca.items[new] = comment
        return
    mapping.clear()
    for key, value in items:
        mapping[new if key == old else key] = value
