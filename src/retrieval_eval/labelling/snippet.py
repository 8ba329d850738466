"""The passage of a document a judge reads first: the sentence sharing most question words.

A snippet is an exact slice of the document text (so the judging page can find and
highlight it in the full text): the best-matching sentence, widened to whole sentences
up to ``SNIPPET_CHARS`` and cut there. Words are matched case-insensitively, ignoring
words of fewer than three letters.
"""

from __future__ import annotations

import re

SNIPPET_CHARS = 240
_SENTENCE = re.compile(r"[^.!?|\n]+[.!?|]?")
_WORD = re.compile(r"\w{3,}")


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def best_passage(question: str, text: str, limit: int = SNIPPET_CHARS) -> str:
    """The slice of ``text`` around the sentence that shares most words with ``question``."""
    spans = [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group().strip()]
    if not spans:
        return text[:limit].strip()
    wanted = words(question)
    scores = [len(wanted & words(text[a:b])) for a, b in spans]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    start, end = spans[best]
    after = best + 1
    while after < len(spans) and spans[after][1] - start <= limit:
        end = spans[after][1]
        after += 1
    return text[start : min(end, start + limit)].strip()
