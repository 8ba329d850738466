"""Read back the verdict a run was stored with (see ``retrieval_eval.store.verdicts``).

Every later view of a run (``runs show`` in any format, history) reports the verdict the
run was given when it was saved rather than judging again.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from retrieval_eval.regression.verdict_records import (
    ErrorBudget,
    Flip,
    FlipDirection,
    MetricDelta,
    PairedTest,
    Thresholds,
    UnjudgedAtK,
    UnjudgedSummary,
    Verdict,
    VerdictKind,
)

if TYPE_CHECKING:  # importing store/ would load SQLAlchemy
    from retrieval_eval.store.stored_run import StoredRun


def stored_verdict(stored: StoredRun) -> Verdict | None:
    """The verdict stored with the run; None when it was saved without a check."""
    if stored.verdict_document is None:
        return None
    return verdict_from_document(stored.verdict_document)


def verdict_from_document(text: str) -> Verdict:
    data: dict[str, Any] = json.loads(text)
    thresholds = data.get("thresholds")
    return Verdict(
        kind=VerdictKind(data["kind"]),
        baseline_run_id=data.get("baseline_run_id"),
        reasons=tuple(data.get("reasons", ())),
        deltas=tuple(MetricDelta(**d) for d in data.get("deltas", ())),
        flips=tuple(_flip(f) for f in data.get("flips", ())),
        tests=tuple(PairedTest(**t) for t in data.get("tests", ())),
        warnings=tuple(data.get("warnings", ())),
        incomparable_parts=tuple(data.get("incomparable_parts", ())),
        thresholds=None if thresholds is None else _thresholds(thresholds),
        variant_change=data.get("variant_change"),
        drift_reference_run_id=data.get("drift_reference_run_id"),
        rule=data.get("rule"),
        not_accepted=tuple(data.get("not_accepted", ())),
        baseline_file=data.get("baseline_file"),
        baseline_required=bool(data.get("baseline_required", False)),
        unjudged=_unjudged(data.get("unjudged")),
    )


def _unjudged(data: dict[str, Any] | None) -> UnjudgedSummary | None:
    """The lost hits' classification (a verdict stored before it was made has none)."""
    if data is None:
        return None
    by_k = tuple(UnjudgedAtK(at["k"], at["losses"], at["wins"], tuple(at["question_ids"]))
                 for at in data.get("by_k", ()))  # fmt: skip
    return UnjudgedSummary(data["set_source"], data["relevance_level"], by_k,
                           bool(data.get("decided", False)))  # fmt: skip


def _thresholds(data: dict[str, Any]) -> Thresholds:
    budget = data.get("max_errors")
    values = {k: v for k, v in data.items() if k != "max_errors"}
    if isinstance(budget, dict):
        percent = budget.get("percent")
        values["max_errors"] = ErrorBudget(
            count=budget.get("count", 0), percent=None if percent is None else Fraction(percent)
        )
    return Thresholds(**values)


def _flip(data: dict[str, Any]) -> Flip:
    return Flip(
        question_id=data["question_id"],
        k=data["k"],
        direction=FlipDirection(data["direction"]),
        expected_document_ids=tuple(data["expected_document_ids"]),
        current_ranking=tuple(data["current_ranking"]),
        baseline_ranking=tuple(data["baseline_ranking"]),
    )
