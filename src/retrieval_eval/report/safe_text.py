"""Text from ids, questions and servers made safe for a terminal: control characters are
shown as escapes (``\\x1b``, ``\\n``, ``\\u202e``), never sent, and long ids are shortened.

Ids and questions come from files and retrievers we do not control; an ESC in one could
rewrite the user's terminal, a 3 MB id could flood it. The JSON report keeps them whole.
"""

from __future__ import annotations

import re

from rich.markup import escape

#: C0 and C1 controls, DEL, line/paragraph separators, bidi overrides and isolates, and
#: lone surrogates: none may reach a terminal as is.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNSAFE_BUT_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
#: Longest id the text report shows whole.
SHOWN_ID_CHARS = 80


def _escaped(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape", "backslashreplace").decode("ascii")


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control character written as its escape."""
    pattern = _UNSAFE_BUT_NEWLINE if keep_newlines else _UNSAFE
    return pattern.sub(_escaped, text) if pattern.search(text) else text


def short(text: str, limit: int = SHOWN_ID_CHARS) -> str:
    """``visible(text)``, cut to ``limit`` characters with the full length noted."""
    head = visible(text[:limit])  # cut first: a 3 MB id is never scanned whole
    if len(text) <= limit and len(head) <= limit:
        return head
    return f"{head[: limit - 1]}…({len(text):,} chars)"


def markup_safe(text: str, limit: int | None = None) -> str:
    """For rich markup: shortened (when ``limit``), control-escaped, markup-escaped."""
    return escape(short(text, limit) if limit else visible(text))
