"""What of a ``command`` process's standard error an error message may carry.

A process's stderr can hold anything it was given: a traceback that prints its
environment, a client library echoing its API key. An error message is stored with the
run and shown in every report, so it carries only the tail that explains an exit (the
last ``SHOWN`` lines, each clipped to ``LINE_CHARS``), with every secret value masked:
the values of the entry's ``env`` table, and of each variable of the inherited
environment whose name says it holds a secret (``OPENAI_API_KEY``, ``PGPASSWORD``, ...).
Values shorter than ``MIN_MASKED`` characters are left alone (masking ``"1"`` would
mangle every number, and no secret is that short).
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable, Mapping

#: Lines kept from the end of the stream, and lines an error message shows.
KEPT = 20
SHOWN = 3
LINE_CHARS = 200
MIN_MASKED = 4
MASK = "***"
#: Names of inherited variables whose values are masked too.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASS|PWD|CREDENTIAL|AUTH|PRIVATE", re.IGNORECASE)


def secret_values(entry_env: Mapping[str, str], inherited: Mapping[str, str]) -> tuple[str, ...]:
    """The values to mask, longest first (a value inside another is masked with it)."""
    values = {*entry_env.values()}
    values.update(value for name, value in inherited.items() if SECRET_NAME.search(name))
    return tuple(sorted((v for v in values if len(v) >= MIN_MASKED), key=len, reverse=True))


class StderrTail:
    """The last lines a process wrote on stderr, masked as they arrive."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._secrets = tuple(secrets)
        self._lines: collections.deque[str] = collections.deque(maxlen=KEPT)

    def mask(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def add(self, raw: bytes) -> str | None:
        """Keep one line (masked, clipped); returns it, or None for a blank line."""
        text = raw.decode("utf-8", "replace").rstrip()
        if not text:
            return None
        text = self.mask(text)  # before clipping: a clipped secret would slip through
        if len(text) > LINE_CHARS:
            text = text[: LINE_CHARS - 1] + "…"
        self._lines.append(text)
        return text

    def tail(self) -> str:
        """The last ``SHOWN`` lines, joined for a one-line message ("" when none)."""
        return " | ".join(list(self._lines)[-SHOWN:])
