"""Texts the run store could not take: a lone surrogate or a NUL character.

A lone surrogate (from an unpaired ``\\udXXX`` escape) cannot be written as UTF-8, and
PostgreSQL text refuses a NUL character, so a run over such labels could never be saved.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_eval.questions.judgments import JUDGMENTS_KEY
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.questions.validate.findings import Findings


def flaw(text: str) -> str | None:
    """Why ``text`` cannot be stored or shown, or ``None``."""
    if "\x00" in text:
        return "holds a NUL character (\\u0000), which the run store cannot take"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode: it holds a lone surrogate (an unpaired \\udXXX escape)"
    return None


def _texts(q: GoldenQuestion) -> list[tuple[str, str]]:
    fields = [("id", q.id), ("question", q.question)]
    fields += [
        (k, v) for k, v in (("hard_class", q.hard_class), ("answer_gist", q.answer_gist)) if v
    ]
    fields += [("expected_document_ids", doc) for doc in q.expected_document_ids]
    return fields + [(JUDGMENTS_KEY, doc) for doc, _ in q.judgments]


def check_storable(
    f: Findings, name: str, description: str, questions: Sequence[GoldenQuestion]
) -> None:
    """Locate every text that ``flaw`` refuses."""
    for key, value in (("name", name), ("description", description)):
        why = flaw(value)
        if why:
            f.add_header(key, f"{key!r} {why}")
    for index, q in enumerate(questions):
        label = q.id if flaw(q.id) is None else None
        for key, text in _texts(q):
            why = flaw(text)
            if why:
                f.add(index, key, label, f"{key!r} {why}: {ascii(text)[:80]}")
