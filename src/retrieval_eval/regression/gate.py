"""The thresholds a run is judged with, and whether they are looser than its lineage's own.

A lineage's own thresholds are the defaults, under reval.toml's ``[gate]`` table, under
its entry ``[gate.retrievers.KEY]`` (``regression.gate_config``). Options given on the
command line go over them: a run is judged with whatever was asked, but a run judged with
any threshold looser than its lineage's own is never accepted as a baseline by that
verdict (``regression.acceptance``): a loose option can judge, it cannot move the bar.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from math import floor
from typing import Any

from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict_records import ErrorBudget, Thresholds
from retrieval_eval.retrievers.lineage import lineage_of

#: The option that sets each threshold, for messages.
OPTION = {
    "max_top1_drop": "--max-top1-drop",
    "max_top3_drop": "--max-top3-drop",
    "max_p95_latency_increase_ms": "--max-p95-latency-increase",
    "max_errors": "--max-errors",
    "max_drift": "--max-drift",
}


@dataclass(frozen=True, slots=True)
class ThresholdChoice:
    """Thresholds as a source gives them (a reval.toml table, the command line): None is
    "not given here", so the next source down decides."""

    max_top1_drop: float | None = None
    max_top3_drop: float | None = None
    max_p95_latency_increase_ms: float | None = None
    max_errors: ErrorBudget | None = None
    max_drift: float | None = None
    unjudged_incomparable: bool | None = None

    def over(self, base: Thresholds) -> Thresholds:
        """``base`` with every threshold given here in its place."""
        given = {f.name: getattr(self, f.name) for f in fields(self)}
        return replace(base, **{k: v for k, v in given.items() if v is not None})


@dataclass(frozen=True, slots=True)
class Gate:
    """A run's thresholds: its lineage's own (defaults < ``table`` < its entry in
    ``entries``) and the command-line ``options`` over them."""

    table: ThresholdChoice = ThresholdChoice()
    #: ``[gate.retrievers.KEY]``: KEY is a reval.toml retriever name, a target as typed
    #: (``bm25:./index``) or a lineage key as ``reval runs show`` prints it.
    entries: Mapping[str, ThresholdChoice] = field(default_factory=dict)
    options: ThresholdChoice = ThresholdChoice()
    #: Where ``table`` and ``entries`` were read, for messages ("reval.toml").
    source: str = ""

    def own(self, run: RunResult) -> Thresholds:
        """The thresholds of ``run``'s lineage, without the command-line options."""
        base = self.table.over(Thresholds())
        key = self.entry_key(run)
        return base if key is None else self.entries[key].over(base)

    def effective(self, run: RunResult) -> Thresholds:
        """What ``run`` is judged with: the options over its lineage's own."""
        return self.options.over(self.own(run))

    def entry_key(self, run: RunResult) -> str | None:
        lineage = lineage_of(run.retriever_target, run.retriever.identifier)
        for key in self.entries:
            if key == lineage or lineage_of(key, key) == lineage:
                return key
        return None

    def own_source(self, run: RunResult) -> str:
        """Where ``run``'s own thresholds come from: "the defaults", "reval.toml [gate]"..."""
        key = self.entry_key(run)
        if key is not None:
            return f"{self.source} [gate.retrievers.{_quoted(key)}]"
        if any(getattr(self.table, f.name) is not None for f in fields(self.table)):
            return f"{self.source} [gate]"
        return "the defaults"


def _quoted(key: str) -> str:
    return key if key.replace("-", "").replace("_", "").isalnum() else f'"{key}"'


def loosened(effective: Thresholds, own: Thresholds, questions: int) -> tuple[str, ...]:
    """One line per threshold of ``effective`` looser than ``own`` (for a run of
    ``questions`` questions: an error budget in percent is compared in questions)."""
    out = []
    for name in ("max_top1_drop", "max_top3_drop", "max_p95_latency_increase_ms", "max_drift"):
        now, limit = getattr(effective, name), getattr(own, name)
        if limit is not None and (now is None or now > limit):
            shown = "unchecked" if now is None else f"{now:g}"
            out.append(f"{OPTION[name]} {shown} is looser than the lineage's {limit:g}")
    if allowed_errors(effective.max_errors, questions) > allowed_errors(own.max_errors, questions):
        out.append(f"--max-errors {effective.max_errors} is looser than the lineage's "
                   f"{own.max_errors}")  # fmt: skip
    return tuple(out)


def allowed_errors(budget: ErrorBudget, questions: int) -> int:
    """The most errored questions ``budget`` lets a run of ``questions`` have."""
    if budget.percent is None:
        return budget.count
    return floor(budget.percent * questions / 100)


def thresholds_record(thresholds: Thresholds) -> dict[str, Any]:
    """``thresholds`` as JSON-ready values (the error budget as its text, "3" or "2%"),
    as an acceptance records them."""
    out: dict[str, Any] = {f.name: getattr(thresholds, f.name) for f in fields(thresholds)}
    out["max_errors"] = str(thresholds.max_errors)
    return out


def stop_asking(gate: Gate) -> Callable[[int, int], bool]:
    """Stop asking a run's questions once its errors exceed every error budget a lineage
    of this evaluation may have (the options', else reval.toml's, else the
    default): which lineage a run is of is known only once it is described."""
    if gate.options.max_errors is not None:
        return gate.options.max_errors.exceeded_by
    choices = (gate.table, *gate.entries.values())
    budgets = [c.max_errors for c in choices if c.max_errors is not None] or [
        Thresholds().max_errors
    ]
    if gate.table.max_errors is None:
        budgets.append(Thresholds().max_errors)
    return lambda errors, total: all(b.exceeded_by(errors, total) for b in budgets)
