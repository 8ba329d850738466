"""Where things are in a set file: line numbers for questions and their keys.

Parsing stays on the fast C paths (``json.loads``, libyaml); positions are worked out
separately, and for JSON only when a problem actually has to be reported.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # yaml is imported when a YAML set is read (``YamlLines``), not before
    import yaml

_WS = re.compile(r"[ \t\n\r]*")


class Locator(Protocol):
    """Line numbers (from 1) inside one set file; ``None`` where the format has none."""

    def question_line(self, index: int) -> int | None: ...

    def key_line(self, index: int, key: str) -> int | None: ...

    def header_line(self, key: str) -> int | None: ...


class NoLines:
    """For sets that never were a file (a provider's in-memory data)."""

    def question_line(self, index: int) -> int | None:
        return None

    def key_line(self, index: int, key: str) -> int | None:
        return None

    def header_line(self, key: str) -> int | None:
        return None


class JsonlLines:
    """One question per line: every key of a question is on the question's line."""

    def __init__(self, lines: Sequence[int], header: int | None) -> None:
        self._lines, self._header = lines, header

    def question_line(self, index: int) -> int | None:
        return self._lines[index] if index < len(self._lines) else None

    def key_line(self, index: int, key: str) -> int | None:
        return self.question_line(index)

    def header_line(self, key: str) -> int | None:
        return self._header


def _mapping_keys(node: yaml.Node | None) -> dict[str, int]:
    # PyYAML only to locate a problem in a YAML set
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return {}
    keys: dict[str, int] = {}
    for key, _value in node.value:
        if isinstance(key, yaml.ScalarNode):
            keys.setdefault(str(key.value), key.start_mark.line + 1)
    return keys


class YamlLines:
    """Lines straight from libyaml's node marks (composed once, while loading)."""

    def __init__(self, root: yaml.Node | None) -> None:
        # PyYAML only to locate a problem in a YAML set
        import yaml

        self._root_keys = _mapping_keys(root)
        items: Sequence[yaml.Node] = []
        if isinstance(root, yaml.SequenceNode):
            items = root.value
        elif isinstance(root, yaml.MappingNode):
            for key, value in root.value:
                if getattr(key, "value", None) == "questions" and isinstance(
                    value, yaml.SequenceNode
                ):
                    items = value.value
        self.items = items

    def question_line(self, index: int) -> int | None:
        if index >= len(self.items):
            return None
        return int(self.items[index].start_mark.line) + 1

    def key_line(self, index: int, key: str) -> int | None:
        if index >= len(self.items):
            return None
        return _mapping_keys(self.items[index]).get(key) or self.question_line(index)

    def header_line(self, key: str) -> int | None:
        return self._root_keys.get(key, 1)


def duplicate_yaml_keys(node: yaml.Node | None) -> list[tuple[str, int]]:
    """Keys given twice in one mapping (libyaml silently keeps the last): (key, line)."""
    # PyYAML only to check a YAML set's keys
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    seen: set[str] = set()
    dups = []
    for key, _value in node.value:
        name = str(getattr(key, "value", ""))
        if name in seen:
            dups.append((name, key.start_mark.line + 1))
        seen.add(name)
    return dups


class JsonLines:
    """Lines in a (valid) JSON document, found by a lazy positional re-scan."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._scanned = False
        self._newlines: list[int] = []
        self._root: dict[str, tuple[int, int]] = {}
        self.items: list[int] = []

    def _scan(self) -> None:
        if self._scanned:
            return
        self._scanned = True
        text = self._text
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        start = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if text.startswith("[", start):
            self.items = _array_items(text, start)
        elif text.startswith("{", start):
            self._root = _object_members(text, start)
            _key, value = self._root.get("questions", (0, -1))
            if value >= 0 and text.startswith("[", value):
                self.items = _array_items(text, value)

    def _line(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1

    def question_line(self, index: int) -> int | None:
        self._scan()
        return self._line(self.items[index]) if index < len(self.items) else None

    def key_line(self, index: int, key: str) -> int | None:
        self._scan()
        if index >= len(self.items):
            return None
        found = _object_members(self._text, self.items[index]).get(key)
        return self._line(found[0] if found is not None else self.items[index])

    def header_line(self, key: str) -> int | None:
        self._scan()
        found = self._root.get(key)
        return self._line(found[0]) if found is not None else 1


_DECODER = json.JSONDecoder()


def _skip(text: str, at: int) -> int:
    return _WS.match(text, at).end()  # type: ignore[union-attr]


def _array_items(text: str, at: int) -> list[int]:
    """Offsets of the elements of the JSON array starting at ``at``."""
    starts: list[int] = []
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return starts
    while True:
        starts.append(at)
        _value, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if not text.startswith(",", at):
            return starts
        at = _skip(text, at + 1)


def _object_members(text: str, at: int) -> dict[str, tuple[int, int]]:
    """Key -> (key offset, value offset) in the JSON object at ``at`` (first occurrence)."""
    keys: dict[str, tuple[int, int]] = {}
    if not text.startswith("{", at):
        return keys
    at = _skip(text, at + 1)
    while text.startswith('"', at):
        key: Any
        key, end = _DECODER.raw_decode(text, at)
        value = _skip(text, _skip(text, end) + 1)  # past the colon
        keys.setdefault(str(key), (at, value))
        _value, at = _DECODER.raw_decode(text, value)
        at = _skip(text, at)
        if not text.startswith(",", at):
            break
        at = _skip(text, at + 1)
    return keys
