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
    """No answer holds more results than the limit it was asked with.

    Passing says little unless the server had to cut: a limit counts as exercised when a
    question answered with exactly that many results got more at a larger limit. When
    none was, the check passes with a warning (a sparse retriever, or probes that match
    little: take the probes from a set).
    """
    for question, limit, items in answers:
        breach = count_breach(len(items), limit)
        if breach is not None:
            return CheckResult("limit", False, f"{breach} (question {question!r})")
    sizes = [len(items) for _, _, items in answers]
    counts = ", ".join(map(str, sizes))
    if len(sizes) > 6:  # a set's probes: the spread, not every count
        counts = f"{min(sizes)} to {max(sizes)} results in {len(sizes)} answers"
    asked = ", ".join(str(limit) for limit in limits)
    detail = f"never more results than the limit (limits {asked}; got {counts})"
    cut = truncated_limits(answers)
    if cut:
        return CheckResult("limit", True, f"{detail}; cut at limit {', '.join(map(str, cut))}")
    why = "no question had more results than a smaller limit allowed"
    if not any(items for _, _, items in answers):
        why = "no results at all"
    detail += f"; no probe exercised truncation ({why})"
    return CheckResult("limit", True, detail, warning=True)


def truncated_limits(answers: Sequence[Answer]) -> list[int]:
    """The limits at which some question was cut: it got exactly ``limit`` results there
    and more at a larger limit, so the server had more to give and held back."""
    most: dict[str, int] = {}
    for question, _limit, items in answers:
        most[question] = max(most.get(question, 0), len(items))
    return sorted(
        {limit for question, limit, items in answers if len(items) == limit < most[question]}
    )


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
    """No result has an empty, blank or oversized id; duplicates are allowed (chunks).
    The same rule the client applies to every answer during an evaluation."""
    for question, _limit, items in answers:
        for rank, item in enumerate(items, start=1):
            breach = item_breach(rank, item)
            if breach is not None:
                return CheckResult("document-ids", False, f"{breach} (question {question!r})")
    total = sum(len(items) for _, _, items in answers)
    return CheckResult("document-ids", True, f"no empty, blank or oversized ids in {total} results")
