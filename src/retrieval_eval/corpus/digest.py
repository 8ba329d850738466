"""The digest of a document's text: what a label records to know it was judged on that text.

One definition for every writer (the judging page, ``sets draft``, ``sets generate``, an
import with ``--corpus``) and every checker (``sets lint --corpus``, ``eval --corpus``):

1. The text is the document as the corpus readers give it: its ``title`` ("" when the
   line has none or null) and its ``text``, exactly, with no whitespace or Unicode
   normalisation. Any edit of either, even a changed line ending, is a changed document.
2. The digest is ``sha256:`` and the hex SHA-256 of the UTF-8 JSON array
   ``["<title>", "<text>"]`` (a comma and a space between; non-ASCII characters as
   themselves, JSON's escapes for quotes, backslashes and control characters): unambiguous
   where a separator character could appear in a title.

It is not the indexes' content hash (``revision.content_hash``, a truncated hash for
``--update``): a digest is provenance written into set files, so it is spelt in full.
"""

from __future__ import annotations

import hashlib
import json
import re

DIGEST_PREFIX = "sha256:"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def document_digest(title: str, text: str) -> str:
    """The digest of one document (module docstring)."""
    canonical = json.dumps([title, text], ensure_ascii=False)
    return DIGEST_PREFIX + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def is_digest(value: object) -> bool:
    """Whether ``value`` is spelt as ``document_digest`` spells a digest."""
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None
