"""How the plugin fails a test: with one visible line, and never a password."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def visible(message: str) -> str:
    """Ids and rankings come from retrievers: their control characters (an ESC could
    rewrite the terminal or CI log) are shown as escapes, as the CLI does."""
    from retrieval_eval.report.safe_text import visible as shown

    return shown(message, keep_newlines=True)


@contextmanager
def one_line_failures(db: str | None) -> Iterator[None]:
    """Store and configuration errors fail the test with their one-line message and no
    traceback: pytest's traceback shows each frame's arguments, and the database URL
    (or a driver's ``conninfo``) would carry its password into the CI log."""
    from retrieval_eval.errors import ConfigError, StoreError

    try:
        yield
    except (StoreError, ConfigError) as e:
        message = f"reval: {_scrub(str(e), db)}"
        raise pytest.fail.Exception(message, pytrace=False) from None  # no chained trace


def _scrub(message: str, db: str | None) -> str:
    """``message`` made visible, with every password reval may know replaced by ``***``:
    masked URLs, and the bare password of the store URL wherever a driver quoted it."""

    from retrieval_eval.store.url import mask

    text = visible(message)
    for url in (db, os.environ.get("REVAL_DATABASE_URL")):
        if not url:
            continue
        text = text.replace(url, mask(url))
        password = re.match(r"[^:/]+://[^:/@]*:([^@]+)@", url)
        if password and len(password.group(1)) > 1:
            text = text.replace(password.group(1), "***")
    return re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", text, flags=re.IGNORECASE)
