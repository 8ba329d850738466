"""JSON decoding that notices keys given twice (``json`` silently keeps the last one), and
``read_line`` for the JSON lines of a user's file, whose every refusal is a ``ValueError``
with a short reason.

The C decoder does the work; the slower duplicate-aware decode runs only when a cheap count
says a key may repeat, so plainly valid files load at bare-parser speed.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any


class DuplicateKeys(dict):  # type: ignore[type-arg]
    """A JSON object in which some key appeared more than once (the last one won)."""

    duplicates: list[str]


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data = dict(pairs)
    if len(data) == len(pairs):
        return data
    marked = DuplicateKeys(data)
    seen: set[str] = set()
    marked.duplicates = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
    return marked


WITH_DUPLICATES = json.JSONDecoder(object_pairs_hook=_pairs_hook)
PLAIN = json.JSONDecoder()
#: Ends of JSON keys (and maybe of some string values): never fewer than the keys present.
KEY_END = re.compile(r'"\s*:')


def decode_checked(text: str, keys_seen: Callable[[Any], int]) -> Any:
    """Decode on the fast path; redo with the duplicate-key hook only if a key may repeat.

    ``KEY_END`` counts at least one match per key in the text; when that count equals the
    number of keys the decoded mappings hold, no key can have been given twice.
    """
    data = PLAIN.decode(text)
    if len(KEY_END.findall(text)) == keys_seen(data):
        return data
    return WITH_DUPLICATES.decode(text)


def keys_in_set(data: Any) -> int:
    """Keys of the top level and of each question (deeper mappings force the slow path)."""
    questions = data.get("questions") if type(data) is dict else data
    count = len(data) if type(data) is dict else 0
    if type(questions) is list:
        count += sum(len(q) for q in questions if type(q) is dict)
    return count


def keys_in_line(obj: Any) -> int:
    return len(obj) if type(obj) is dict else 0


class UnreadableJSON(ValueError):
    """A user's JSON text that cannot be read; ``reason`` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_line(text: str) -> Any:
    """``text`` decoded, or ``UnreadableJSON``: besides a syntax error, ``json`` refuses
    nesting deeper than the interpreter's stack (``RecursionError``) and an integer over
    Python's digit limit (a bare ``ValueError``), which must not end in a traceback."""
    try:
        return PLAIN.decode(text)
    except json.JSONDecodeError as e:
        raise UnreadableJSON(f"{e.msg} (column {e.colno})") from e
    except RecursionError:
        raise UnreadableJSON("nested too deeply to read") from None
    except ValueError as e:
        limit = sys.get_int_max_str_digits()
        raise UnreadableJSON(f"a number over {limit} digits; quote it if it is an id") from e
