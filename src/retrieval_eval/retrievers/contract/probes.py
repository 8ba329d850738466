"""What the contract checker asks: generic probe questions (or up to ``MAX_SET_PROBES`` of
a set's own), the limits each is asked at, the blank question that must be refused like an
empty one, and the short deadline of the deadline check."""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_eval.retrievers.contract.limits import request_problem

#: Generic questions: any retriever over any corpus should answer something to most. A
#: sparse retriever may answer them with fewer results than the limits below, which leaves
#: the limit unexercised: questions from the team's own set (``probe_questions``) do better.
PROBE_QUESTIONS: tuple[str, ...] = (
    "how are documents ranked and returned for a question",
    "what is the best way to get started",
)
PROBE_LIMITS = (1, 5, 12)
#: How many of a set's questions are asked (each at every probe limit), in set order.
MAX_SET_PROBES = 20
#: A blank question (only White_Space characters) that must be refused like an empty one.
BLANK_QUESTION = " \t\u3000 "
#: The short deadline of the deadline check, and how much longer we wait before calling
#: the call hung.
SHORT_DEADLINE_S = 0.2
HANG_GRACE_S = 2.0


def probe_questions(texts: Sequence[str], limit: int = MAX_SET_PROBES) -> tuple[str, ...]:
    """Up to ``limit`` distinct questions from ``texts`` (a set's, in order) that the
    contract allows, to probe with instead of ``PROBE_QUESTIONS``."""
    chosen: dict[str, None] = {}
    for text in texts:
        if len(chosen) == limit:
            break
        if request_problem(text, 1) is None:
            chosen.setdefault(text)
    return tuple(chosen)
