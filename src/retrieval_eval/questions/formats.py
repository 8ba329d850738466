"""Reading and writing set files: YAML (safe loading only), JSON and JSONL, gzip optional.

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
A JSONL file is read line by line and each plainly valid question built as it is read, so
a set of a million lines never holds its whole text and every raw mapping at once.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import zlib
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval_eval.atomic import write_atomically
from retrieval_eval.questions.bounded import (
    MAX_DOCUMENT_BYTES,
    TooLarge,
    numbered_lines,
    open_set_file,
    read_bounded,
)
from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.jsondecode import (
    KEY_END,
    PLAIN,
    WITH_DUPLICATES,
    DuplicateKeys,
    decode_checked,
    keys_in_line,
    keys_in_set,
)
from retrieval_eval.questions.judgments import (
    DEFAULT_LEVEL,
    JUDGMENTS_KEY,
    LEVEL_KEY,
    SCALE_KEY,
    header_level,
)
from retrieval_eval.questions.locate import (
    JsonLines,
    JsonlLines,
    Locator,
    NoLines,
    YamlLines,
    duplicate_yaml_keys,
)
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.questions.problems import Problem
from retrieval_eval.questions.wellformed import well_formed

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


_UNREADABLE = object()


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


def read_set_file(path: Path) -> RawSet:
    """Parse one set file; every failure becomes a ``Problem`` in the result."""
    source, name = str(path), stem_name(path)
    fmt = set_format(path)
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        message = f"unknown set file type; expected one of {known} (optionally .gz)"
        return RawSet(source, name, {}, None, problems=[Problem(source, None, message)])
    if fmt == "jsonl":
        return read_jsonl_file(path, source, name)
    try:
        text = read_text(path)
    except UnicodeDecodeError as e:
        problem = Problem(source, None, f"not UTF-8 text (byte {e.start})")
        return RawSet(source, name, {}, None, problems=[problem])
    except OSError as e:
        problem = Problem(source, None, f"cannot read: {e.strerror or e}")
        return RawSet(source, name, {}, None, problems=[problem])
    parse = {"yaml": parse_yaml, "json": parse_json}[fmt]
    return parse(text, source, name)


def _split_document(data: Any) -> tuple[dict[str, Any], Any]:
    if isinstance(data, list):
        return {}, data
    if isinstance(data, dict):
        header = dict(data)
        return header, header.pop("questions", None)
    return {"": data}, None  # the validator reports the wrong top-level type


def parse_yaml(text: str, source: str, default_name: str) -> RawSet:
    # PyYAML only for a YAML set
    import yaml  # only when a YAML set is read: a JSON or JSONL one never loads it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        what = e.problem or e.context or "syntax error"
        started = e.context_mark
        if e.problem and e.context and started is not None and started.line + 1 != line:
            what = f"{what} ({e.context} at line {started.line + 1})"
        return RawSet(
            source, default_name, {}, None, problems=[_syntax(source, line, "YAML", what, text)]
        )
    except yaml.YAMLError as e:
        return RawSet(source, default_name, {}, None, problems=[_syntax(source, None, "YAML", e)])
    except (ValueError, RecursionError) as e:
        return RawSet(source, default_name, {}, None, problems=[_beyond(source, "YAML", e, text)])
    finally:
        loader.dispose()
    header, questions = _split_document(data)
    locator = YamlLines(root)
    dups: dict[int, list[tuple[str, int | None]]] = {}
    if isinstance(root, yaml.MappingNode):
        dups[-1] = list(duplicate_yaml_keys(root))
    for index, node in enumerate(locator.items):
        found = duplicate_yaml_keys(node)
        if found:
            dups[index] = list(found)
    dups = {k: v for k, v in dups.items() if v}
    return RawSet(source, default_name, header, questions, locator, duplicate_keys=dups)


def parse_json(text: str, source: str, default_name: str) -> RawSet:
    try:
        data = decode_checked(text, keys_in_set)
    except json.JSONDecodeError as e:
        problem = _syntax(source, e.lineno, "JSON", f"{e.msg} (column {e.colno})", text)
        return RawSet(source, default_name, {}, None, problems=[problem])
    except (ValueError, RecursionError) as e:
        return RawSet(source, default_name, {}, None, problems=[_beyond(source, "JSON", e, text)])
    header, questions = _split_document(data)
    dups: dict[int, list[tuple[str, int | None]]] = {}
    locator = JsonLines(text)
    if isinstance(data, DuplicateKeys):
        dups[-1] = [(k, locator.header_line(k)) for k in data.duplicates]
    if isinstance(questions, list):
        for index, q in enumerate(questions):
            if isinstance(q, DuplicateKeys):
                dups[index] = [(k, locator.question_line(index)) for k in q.duplicates]
    return RawSet(source, default_name, header, questions, locator, duplicate_keys=dups)


def read_jsonl_file(path: Path, source: str, default_name: str) -> RawSet:
    """Read a JSONL set line by line (gzip by suffix): each plainly valid question is built
    as it is read, so the file's text and its raw mappings are never all held at once.
    Failing to open, decompress or decode the file is its one problem, as for other formats."""
    gz = path.suffix.lower() == ".gz"
    try:
        with open_set_file(path) as f:
            return _JsonlReader(source, default_name).read(numbered_lines(f, path))
    except UnicodeDecodeError as e:
        return _unreadable(source, default_name, f"not UTF-8 text (byte {e.start})")
    except TooLarge as e:
        return _unreadable(source, default_name, f"cannot read: {e}")
    except (OSError, EOFError, zlib.error) as e:
        what = getattr(e, "strerror", None) or (f"not a valid gzip file ({e})" if gz else e)
        return _unreadable(source, default_name, f"cannot read: {what}")


def _unreadable(source: str, default_name: str, message: str) -> RawSet:
    return RawSet(source, default_name, {}, None, problems=[Problem(source, None, message)])


class _JsonlReader:
    """One JSONL set, fed line by line: the optional header, then one question a line."""

    def __init__(self, source: str, default_name: str) -> None:
        self.source, self.default_name = source, default_name
        self.header: dict[str, Any] = {}
        self.header_line: int | None = None
        #: Plainly valid questions, packed as they are read (``CompactQuestions``).
        self.built = CompactQuestions.builder()
        #: Position -> the raw value of a line that must be checked field by field.
        self.unchecked: dict[int, Any] = {}
        self.count = 0
        self.lines: array[int] = array("q")
        self.problems: list[Problem] = []
        self.dups: dict[int, list[tuple[str, int | None]]] = {}
        self.level = DEFAULT_LEVEL

    def read(self, numbered: Iterable[tuple[int, str]]) -> RawSet:
        first = True
        for number, line in numbered:
            if not line.strip():
                continue
            obj = self.decode(number, line)
            if obj is not _UNREADABLE:
                self.take(obj, number, first)
            first = False
        locator = JsonlLines(self.lines, self.header_line)
        return RawSet(
            self.source, self.default_name, self.header, self.questions(), locator,
            self.problems, self.dups, built=True,
        )  # fmt: skip

    def questions(self) -> Any:
        """The compact questions when every line was plainly valid (the common case);
        else a list of the built questions and the raw values, in file order."""
        built = self.built.build()
        if not self.unchecked and self.count:
            return built
        rows = iter(built)
        return [self.unchecked[i] if i in self.unchecked else next(rows) for i in range(self.count)]

    def decode(self, number: int, line: str) -> Any:
        try:
            obj = PLAIN.decode(line)
        except json.JSONDecodeError as e:
            what = f"{e.msg} (column {e.colno})"
            self.problems.append(_syntax(self.source, number, "JSON", what, line, exact=True))
            return _UNREADABLE
        except (ValueError, RecursionError) as e:
            self.problems.append(_beyond(self.source, "JSON", e, line, number))
            return _UNREADABLE
        if len(KEY_END.findall(line)) != keys_in_line(obj):
            obj = WITH_DUPLICATES.decode(line)  # a key may be given twice: find out
        return obj

    def take(self, obj: Any, number: int, first: bool) -> None:
        if first and isinstance(obj, dict) and HEADER_KEY in obj:
            self.header, self.header_line = dict(obj), number
            self.level = header_level(self.header)
            if isinstance(obj, DuplicateKeys):
                self.dups[-1] = [(k, number) for k in obj.duplicates]
            return
        if isinstance(obj, DuplicateKeys):
            self.dups[self.count] = [(k, number) for k in obj.duplicates]
        question = well_formed(obj, self.level)
        if question is None:
            self.unchecked[self.count] = obj
        else:
            self.built.add(question)
        self.count += 1
        self.lines.append(number)


_LONG_INT = re.compile(rf"\d{{{sys.get_int_max_str_digits() + 1},}}")


def _beyond(source: str, fmt: str, error: Exception, text: str, line: int | None = None) -> Problem:
    """A document the parser cannot hold: an integer over Python's digit limit
    (``ValueError``) or nesting deeper than the interpreter's stack (``RecursionError``)."""
    if isinstance(error, RecursionError):
        return Problem(source, line, f"invalid {fmt}: nested too deeply to read")
    found = _LONG_INT.search(text)
    if found is None:
        return Problem(source, line, f"invalid {fmt}: {error}")
    if line is None:
        line = text.count("\n", 0, found.start()) + 1
    limit = sys.get_int_max_str_digits()
    digits = len(found.group())
    return Problem(
        source,
        line,
        f"invalid {fmt}: a number of {digits} digits (over {limit} digits); "
        "quote it if it is an id",
    )


_ID_NEAR = re.compile(r"""(?:^|[\s{,\-])["']?id["']?\s*:\s*["']?([^\s"',}{\[\]]+)""")


def _syntax(
    source: str, line: int | None, fmt: str, what: object, text: str = "", exact: bool = False
) -> Problem:
    """A syntax problem, naming the question it is in or after when an ``id`` can be seen.

    ``text`` is the whole document, searched upwards from ``line`` (YAML, JSON), or with
    ``exact`` the offending line itself (JSONL).
    """
    message = f"invalid {fmt}: {what}"
    if line is not None and text:
        window = [text] if exact else reversed(text.split("\n")[max(0, line - 40) : line])
        for candidate in window:
            found = _ID_NEAR.search(candidate)
            if found:
                where = "in" if exact else "in or after"
                return Problem(source, line, f"{message} ({where} question {found.group(1)!r})")
    return Problem(source, line, message)


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
