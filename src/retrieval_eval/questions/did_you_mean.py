"""Suggestions ("did you mean ...?") for misspelt keys and names.

``difflib`` alone misses the commonest typos of long names (``expcted`` is far from
``expected_document_ids`` as a whole), so each candidate is also matched by its parts and by
a few well-known synonyms from other formats (BEIR's ``text``, ``_id``; ``query``; ...).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping


def suggest(
    word: str,
    choices: Iterable[str],
    *,
    synonyms: Mapping[str, str] | None = None,
    n: int = 3,
) -> list[str]:
    """The choices closest to ``word``, best first (empty when nothing is close)."""
    options = sorted(set(choices))
    lowered: dict[str, list[str]] = {}
    for choice in options:
        lowered.setdefault(choice.lower(), []).append(choice)
    whole = difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=0.75)
    if whole:
        return [c for alias in whole for c in lowered[alias] if c != word][:n]
    aliases: dict[str, set[str]] = {}
    for choice in options:
        aliases.setdefault(choice.lower(), set()).add(choice)
        for part in choice.lower().replace("-", "_").split("_"):
            if len(part) >= 4:
                aliases.setdefault(part, set()).add(choice)
    for alias, target in (synonyms or {}).items():
        if target in options:
            aliases.setdefault(alias.lower(), set()).add(target)
    found: list[str] = []
    for alias in difflib.get_close_matches(word.lower(), list(aliases), n=n * 2, cutoff=0.6):
        for target in sorted(aliases[alias]):
            if target not in found and target != word:
                found.append(target)
    return found[:n]


def did_you_mean(
    word: str, choices: Iterable[str], *, synonyms: Mapping[str, str] | None = None
) -> str:
    """``"; did you mean 'x'?"`` or the empty string, ready to append to a message."""
    found = suggest(word, choices, synonyms=synonyms)
    if not found:
        return ""
    return "; did you mean " + " or ".join(repr(f) for f in found) + "?"
