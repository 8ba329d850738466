"""Set files: YAML (safe loading only), JSON and JSONL, gzip optional; and writing them.

The file format (field names are the same in every format)::

    # YAML / JSON: one mapping
    reval_question_set: 1          # optional format version
    name: support-faq              # optional; default: the file name without suffixes
    description: Questions our support team answers daily   # optional
    relevance_level: 1             # optional: the grade a document needs to be expected
    grade_scale: [0, 3]            # optional: the grades the labellers use
    questions:
      - id: q1                     # required, a string, unique in the set
        question: How do I reset my password?        # required, not empty
        form: match                # MATCH | GAP | UNLABELLED, any case; missing: UNLABELLED
        expected_document_ids: [kb-12, kb-40]        # this or judgments; [] = nothing answers
        judgments: {kb-12: 2, kb-40: 1, kb-7: 0}      # optional grades (see ``judgments``)
        hard_class: near-duplicate # optional, free-form
        answer_gist: Settings > Security > Reset     # optional, never scored

    # JSONL: an optional header object on the first line, then one question per line
    {"reval_question_set": 1, "name": "support-faq", "description": "..."}
    {"id": "q1", "question": "How do I reset my password?", "form": "MATCH", ...}

A YAML/JSON document may also be a bare list of questions. Reading only parses: it yields
a ``RawSet`` (the parsed data plus a ``Locator`` for line numbers); ``validate`` checks it.
``reading`` picks the reader by suffix (``yaml_json``, ``jsonl``); this module holds the
layout's names, the suffixes, and writing a set in every format.
"""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval_eval.atomic import write_atomically
from retrieval_eval.questions.bounded import MAX_DOCUMENT_BYTES, TooLarge, read_bounded
from retrieval_eval.questions.judgments import DEFAULT_LEVEL, JUDGMENTS_KEY, LEVEL_KEY, SCALE_KEY
from retrieval_eval.questions.locate import Locator, NoLines
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.questions.problems import Problem

HEADER_KEY = "reval_question_set"
FORMAT_VERSION = 1
FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".jsonl": "jsonl"}


@dataclass(frozen=True, slots=True)
class RawSet:
    """A parsed but unchecked set: what a file (or a provider) said, and where."""

    source: str
    default_name: str
    #: Set-level keys (name, description, ...); ``questions`` is kept apart.
    header: dict[str, Any]
    #: The ``questions`` value as found (normally a list); ``None`` when absent.
    questions: Any
    locator: Locator = field(default_factory=NoLines)
    #: Problems found while reading (syntax, encoding); fatal for the set.
    problems: list[Problem] = field(default_factory=list)
    #: Keys given twice in one mapping: question index (-1: header) -> [(key, line)].
    duplicate_keys: dict[int, list[tuple[str, int | None]]] = field(default_factory=dict)
    #: ``questions`` may hold ``GoldenQuestion`` records the reader built from plainly
    #: valid lines (JSONL, read line by line), besides raw mappings to check; or be a
    #: ``CompactQuestions`` when every line was plainly valid.
    built: bool = False


def set_format(path: Path) -> str | None:
    """``yaml``, ``json`` or ``jsonl`` from the suffix (``.gz`` allowed after it)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return FORMATS.get(suffixes[-1]) if suffixes else None


def stem_name(path: Path) -> str:
    name = path.name
    for _ in range(2):
        base, dot, suffix = name.rpartition(".")
        if dot and ("." + suffix.lower() in FORMATS or suffix.lower() == "gz"):
            name = base
    return name


def read_text(path: Path, limit: int | None = MAX_DOCUMENT_BYTES) -> str:
    """The file's text; gzip by suffix; raises ``OSError``/``UnicodeDecodeError``, and
    ``TooLarge`` (an ``OSError``) past ``limit`` bytes after decompression."""
    try:
        data = read_bounded(path, limit) if limit is not None else _read_all(path)
    except TooLarge:
        raise
    except (OSError, EOFError, zlib.error) as e:
        if path.suffix.lower() != ".gz" or (isinstance(e, OSError) and e.strerror):
            raise
        raise OSError(f"not a valid gzip file ({e})") from e
    return data.decode("utf-8-sig")


def _read_all(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix.lower() == ".gz" else data


def question_to_dict(q: GoldenQuestion) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": q.id,
        "question": q.question,
        "form": q.form.value,
        "expected_document_ids": list(q.expected_document_ids),
    }
    if q.judgments:
        record[JUDGMENTS_KEY] = dict(q.judgments)
    if q.hard_class is not None:
        record["hard_class"] = q.hard_class
    if q.answer_gist is not None:
        record["answer_gist"] = q.answer_gist
    return record


def write_question_set(qs: GoldenQuestionSet, path: Path) -> None:
    """Write ``qs`` in the format its suffix names (gzip after ``.gz``), atomically."""
    path = Path(path)
    fmt = set_format(path)
    if fmt is None:
        raise ValueError(f"{path}: unknown set file type; use .yaml, .yml, .json or .jsonl")
    header: dict[str, Any] = {
        HEADER_KEY: FORMAT_VERSION,
        "name": qs.name,
        "description": qs.description,
    }
    if qs.relevance_level != DEFAULT_LEVEL:
        header[LEVEL_KEY] = qs.relevance_level
    if qs.grade_scale is not None:
        header[SCALE_KEY] = list(qs.grade_scale)
    records = [question_to_dict(q) for q in qs.questions]
    if fmt == "jsonl":
        lines = [json.dumps(r, ensure_ascii=False) for r in [header, *records]]
        text = "\n".join(lines) + "\n"
    elif fmt == "json":
        text = json.dumps({**header, "questions": records}, ensure_ascii=False, indent=2) + "\n"
    else:
        # PyYAML only to write a YAML set
        import yaml

        document = {**header, "questions": records}
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        text = yaml.dump(document, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)
    data = text.encode("utf-8")
    if path.suffix.lower() == ".gz":
        data = gzip.compress(data, mtime=0)
    write_atomically(path, data)  # an existing file keeps its mode and group
