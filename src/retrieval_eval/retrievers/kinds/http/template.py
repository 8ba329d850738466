"""Request templates: the question and the limit put into a body, a URL query or headers.

Rules (the same everywhere a template appears):

- a string that is exactly ``"{limit}"`` becomes the number (``size = "{limit}"`` -> 12);
- ``{limit}`` inside a longer string is the number's digits;
- ``{question}`` inside a string is the question; in a JSON body it is JSON-escaped (quotes,
  backslashes, control characters), in a URL query it is URL-encoded by the client;
- any other brace is literal (a query DSL may hold its own).

A body is compiled once into the literal pieces of its JSON text and the slots between
them, so each call is a join, and a question can never inject JSON nor a placeholder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

QUESTION = "{question}"
LIMIT = "{limit}"
_SLOTS = re.compile(r'(?<!\\)"\{limit\}"|\{limit\}|\{question\}')


@dataclass(frozen=True, slots=True)
class BodyTemplate:
    """A JSON body with slots; ``render(question, limit)`` gives the bytes to send."""

    #: Literal JSON text between the slots (one more piece than slots).
    pieces: tuple[str, ...]
    #: ``"question"`` or ``"limit"``, one per slot.
    slots: tuple[str, ...]
    #: The canonical JSON text of the template (for the fingerprint).
    text: str

    @classmethod
    def compile(cls, template: Any) -> BodyTemplate:
        text = json.dumps(template, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
        pieces: list[str] = []
        slots: list[str] = []
        start = 0
        for match in _SLOTS.finditer(text):
            pieces.append(text[start : match.start()])
            slots.append("question" if match.group() == QUESTION else "limit")
            start = match.end()
        pieces.append(text[start:])
        return cls(tuple(pieces), tuple(slots), text)

    @property
    def uses_question(self) -> bool:
        return "question" in self.slots

    def render(self, question: str, limit: int) -> bytes:
        if not self.slots:
            return self.pieces[0].encode("utf-8")
        escaped = json.dumps(question, ensure_ascii=False)[1:-1]
        number = str(limit)
        out = [self.pieces[0]]
        for slot, piece in zip(self.slots, self.pieces[1:], strict=True):
            out.append(escaped if slot == "question" else number)
            out.append(piece)
        return "".join(out).encode("utf-8", "surrogatepass")


def render_text(template: str, question: str, limit: int) -> str:
    """A URL query value or header value: plain substitution (the client encodes it)."""
    if template == LIMIT:
        return str(limit)
    # One pass, so that a question holding "{limit}" stays as it is.
    return _SLOTS.sub(lambda m: question if m.group() == QUESTION else str(limit), template)
