"""The contract's rules on Retrieve answers, as pure judgements (no I/O).

Each takes the probe answers ``(question, limit, items)`` and returns one ``CheckResult``
naming the first offending answer, so that a failure says exactly what to fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from retrieval_eval.retrievers.contract.limits import count_breach, item_breach
from retrieval_eval.retrievers.protocol import RetrievedItem

#: The checks judged from the probe answers, in report order.
RESULT_CHECKS = ("limit", "rank-order", "document-ids")
#: One probe: the question, the limit asked, the results in rank order.
Answer = tuple[str, int, list[RetrievedItem]]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One line of a contract check: its name, pass or fail, and why. A ``warning`` passes
    (it is a recommendation, not the contract) but is shown as one."""

    name: str
    passed: bool
    detail: str = ""
    warning: bool = False

    @property
    def status(self) -> str:
        """``PASS``, ``WARN`` or ``FAIL``, as the report prints it."""
        if not self.passed:
            return "FAIL"
        return "WARN" if self.warning else "PASS"


def judge_limit(answers: Sequence[Answer], limits: Sequence[int]) -> CheckResult:
    """No answer holds more results than the limit it was asked with."""
    for question, limit, items in answers:
        breach = count_breach(len(items), limit)
        if breach is not None:
            return CheckResult("limit", False, f"{breach} (question {question!r})")
    counts = ", ".join(str(len(items)) for _, _, items in answers)
    asked = ", ".join(str(limit) for limit in limits)
    detail = f"never more results than the limit (limits {asked}; got {counts})"
    if not any(items for _, _, items in answers):
        detail += "; no results at all, so limit could not really be exercised"
    return CheckResult("limit", True, detail)


def judge_order(answers: Sequence[Answer]) -> CheckResult:
    """Scores, where present, never increase down a ranking (ties are fine)."""
    scored = 0
    for question, limit, items in answers:
        previous: float | None = None
        for rank, item in enumerate(items, start=1):
            if item.score is None:
                continue
            scored += 1
            if previous is not None and item.score > previous:
                return CheckResult(
                    "rank-order",
                    False,
                    f"score rises from {previous:g} to {item.score:g} at rank {rank} "
                    f"(question {question!r}, limit {limit}); results must be best first",
                )
            previous = item.score
    if not scored:
        return CheckResult("rank-order", True, "no scores returned; order taken as rank order")
    return CheckResult(
        "rank-order", True, f"scores never increase down the ranking ({scored} scores)"
    )


def judge_ids(answers: Sequence[Answer]) -> CheckResult:
    """No result has an empty (or blank) or oversized id; duplicates are allowed (chunks).
    The same rule the client applies to every answer during an evaluation."""
    for question, _limit, items in answers:
        for rank, item in enumerate(items, start=1):
            breach = item_breach(rank, item)
            if breach is not None:
                return CheckResult("document-ids", False, f"{breach} (question {question!r})")
    total = sum(len(items) for _, _, items in answers)
    return CheckResult("document-ids", True, f"no empty or oversized ids in {total} results")
