"""The IR measures a run stored (``reval eval --measures``), laid out for the HTML pages.

As the text views say them: each measure by its ir_measures name, its mean, the questions
the mean is over ("mean of N", and the answered ones its no-answer rule left out) and the
convention of the means (reval's, or trec_eval's). A comparison compares only the measures
every run stored under one convention, each against the reference; the others are named,
not compared. A run without measures gives nothing, so its pages are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from retrieval_eval.comparison.results import Comparison, History
from retrieval_eval.records.metrics import MeasureMean

#: How a page names each convention of the means (``RunResult.measure_convention``).
CONVENTIONS = {"reval": "reval's means", "trec_eval": "trec_eval's means"}


def convention_text(convention: str) -> str:
    return CONVENTIONS.get(convention, f"{convention} means")


@dataclass(frozen=True, slots=True)
class RunMeasures:
    """One run's measures, in the order they were asked for."""

    convention: str
    means: Mapping[str, MeasureMean]


@dataclass(frozen=True, slots=True)
class MeasureCell:
    """One run's mean of one measure, and its difference from the reference's (None for
    the reference itself, or when either mean is undefined)."""

    mean: MeasureMean
    delta: float | None


@dataclass(frozen=True, slots=True)
class ComparedMeasures:
    convention: str
    #: Measure name -> one cell per compared run, in run order (the reference first).
    rows: Mapping[str, tuple[MeasureCell, ...]]
    #: Measures some runs stored that are not compared (not every run has them, or the
    #: runs used different conventions).
    left_out: tuple[str, ...]
    #: The runs' conventions differ, so no measure is compared.
    mixed: bool


@dataclass(frozen=True, slots=True)
class HistoryMeasures:
    """Every measure any shown run stored (newest run's order first) and, per run (newest
    first like the history), its means and convention; None for a run without any."""

    names: tuple[str, ...]
    runs: tuple[RunMeasures | None, ...]


def run_measures(means: Mapping[str, MeasureMean], convention: str) -> RunMeasures | None:
    return RunMeasures(convention_text(convention), means) if means else None


def compared_measures(comparison: Comparison) -> ComparedMeasures | None:
    """The comparison's measures table; None when no compared run stored any."""
    runs = comparison.runs
    stored = _names(run.measures for run in runs)
    if not stored:
        return None
    deltas = {(d.run_id, d.metric): d.delta for v in comparison.versus for d in v.deltas}
    rows = {
        name: tuple(
            MeasureCell(run.measures[name], None if i == 0 else deltas.get((run.run_id, name)))
            for i, run in enumerate(runs)
        )
        for name in comparison.measure_names
    }
    left_out = tuple(name for name in stored if name not in rows)
    mixed = len({run.measure_convention for run in runs if run.measures}) > 1
    convention = runs[0].measure_convention
    return ComparedMeasures(convention_text(convention), rows, left_out, mixed)


def history_measures(history: History) -> HistoryMeasures | None:
    """The history's measures table; None when no shown run stored any."""
    names = _names(e.measures for e in history.entries)
    if not names:
        return None
    runs = tuple(run_measures(e.measures, e.measure_convention) for e in history.entries)
    return HistoryMeasures(names, runs)


def _names(measures: Iterable[Mapping[str, MeasureMean]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for means in measures for name in means))
