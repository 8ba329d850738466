"""Fail fast: stop asking a run's questions once its errors already decide its verdict.

A run with more errored questions than its budget (``--max-errors``) is ``incomplete``
whatever its other answers; a hung retriever would otherwise cost every remaining
question its full deadline (unanswered / concurrency x timeout). Once a run's failures
exceed the budget, its remaining questions are recorded as errors of kind ``not_asked``
(never misses) without a call; calls already in flight finish and are kept. The run is
then INCOMPLETE, as it would have been anyway. ``EvalOptions.stop_asking = None`` asks
every question (for diagnosis: every question's own error).
"""

from __future__ import annotations

from collections.abc import Callable

from retrieval_eval.records.failures import FailureKind, RetrievalFailure

#: ``(errors, questions) -> True`` once a run with that many errored questions out of
#: that many can no longer be judged (``ErrorBudget.exceeded_by``).
StopRule = Callable[[int, int], bool]


class ErrorWatch:
    """Counts each run's failed retrievals and says when to stop asking it."""

    __slots__ = ("_errors", "_rule", "_stopped")

    def __init__(self, rule: StopRule) -> None:
        self._rule = rule
        self._errors: dict[int, int] = {}
        self._stopped: dict[int, int] = {}

    def failed(self, run: object, questions: int) -> None:
        """One more failed retrieval in ``run`` (of ``questions`` questions)."""
        key = id(run)
        errors = self._errors[key] = self._errors.get(key, 0) + 1
        if key not in self._stopped and self._rule(errors, questions):
            self._stopped[key] = errors

    def not_asked(self, run: object) -> RetrievalFailure | None:
        """The failure to record instead of asking, or None while ``run`` is asked."""
        errors = self._stopped.get(id(run))
        if errors is None:
            return None
        return RetrievalFailure(
            FailureKind.NOT_ASKED,
            f"not asked: {errors} retrievals of this run had already failed, more than "
            "its error budget allows",
        )
