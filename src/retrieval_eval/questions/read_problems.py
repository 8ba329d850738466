"""The one problem a set file that cannot be parsed becomes, said so people can find it:
the line, and the question it is in when an ``id`` can be seen near it."""

from __future__ import annotations

import re
import sys

from retrieval_eval.questions.problems import Problem

_LONG_INT = re.compile(rf"\d{{{sys.get_int_max_str_digits() + 1},}}")


def beyond(source: str, fmt: str, error: Exception, text: str, line: int | None = None) -> Problem:
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


def syntax(
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
