"""Reading a JSONL set line by line: the optional header object on the first line, then
one question a line, each plainly valid one built as it is read, so a set of a million
lines never holds its whole text and every raw mapping at once."""

from __future__ import annotations

import json
import zlib
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from retrieval_eval.questions.bounded import TooLarge, numbered_lines, open_set_file
from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.formats import HEADER_KEY, RawSet
from retrieval_eval.questions.jsondecode import (
    KEY_END,
    PLAIN,
    WITH_DUPLICATES,
    DuplicateKeys,
    keys_in_line,
)
from retrieval_eval.questions.judgments import DEFAULT_LEVEL, header_level
from retrieval_eval.questions.locate import JsonlLines
from retrieval_eval.questions.problems import Problem
from retrieval_eval.questions.read_problems import beyond, syntax
from retrieval_eval.questions.wellformed import well_formed

_UNREADABLE = object()


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
            self.problems.append(syntax(self.source, number, "JSON", what, line, exact=True))
            return _UNREADABLE
        except (ValueError, RecursionError) as e:
            self.problems.append(beyond(self.source, "JSON", e, line, number))
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
