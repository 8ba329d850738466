"""Counted nouns for reports: "1 run", "2 runs"."""

from __future__ import annotations


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {plural_form or noun + 's'}"
