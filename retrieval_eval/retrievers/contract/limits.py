"""The request rules every server we ship enforces (and the contract checker probes)."""

from __future__ import annotations

#: Inclusive bounds of ``RetrieveRequest.limit``.
MIN_LIMIT = 1
MAX_LIMIT = 1000
#: Largest accepted question, in UTF-8 bytes.
MAX_QUESTION_BYTES = 16 * 1024


def request_problem(question: str, limit: int) -> str | None:
    """Why a Retrieve request is invalid (the INVALID_ARGUMENT message), or ``None``."""
    if not question.strip():
        return "question must not be empty or blank"
    if not MIN_LIMIT <= limit <= MAX_LIMIT:
        return f"limit must be in [{MIN_LIMIT}, {MAX_LIMIT}], got {limit}"
    # A character takes at most 4 bytes: only long questions need encoding to check.
    if len(question) * 4 > MAX_QUESTION_BYTES:
        size = len(question.encode("utf-8"))
        if size > MAX_QUESTION_BYTES:
            return f"question is {size} bytes, more than the {MAX_QUESTION_BYTES}-byte maximum"
    return None
