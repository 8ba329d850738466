"""Figures by label source: how a run does on the questions a person labelled, on those
a model labelled, and on the rest (``labelling.label_sources`` gives the rule).

A report-time view: the run store keeps no label provenance, so the breakdown is taken
from the set file the run was scored against, each group's figures computed from the
run's own question outcomes exactly as ``by_form`` is (hit rates with Wilson intervals
over answered questions; MRR, recall and nDCG over those with expected documents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.label_sources import UNKNOWN, label_sources
from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult
from retrieval_eval.scoring.metrics import summarize

#: The groups in the order reports show them.
SOURCE_ORDER = ("human", "llm", "mixed", UNKNOWN)


def by_label_source(run: RunResult, set_file: Path) -> dict[str, GroupMetrics]:
    """The run's figures per label source of its questions in ``set_file`` (a question
    the file does not hold is ``unknown``); ``InputError`` when it holds none of them."""
    sources = label_sources(set_file)
    groups: dict[str, list[QuestionOutcome]] = {}
    for outcome in run.questions:
        groups.setdefault(sources.get(outcome.question_id, UNKNOWN), []).append(outcome)
    if run.questions and not any(o.question_id in sources for o in run.questions):
        raise InputError(
            f"{set_file}: holds none of the questions of run {run.run_id or run.set_name!r} "
            f"(set {run.set_name!r}): name the set file the run was scored against"
        )
    return {
        name: summarize(groups[name], run.parameters.ks) for name in SOURCE_ORDER if name in groups
    }


def breakdowns(runs: Sequence[RunResult], set_files: Mapping[str, str]) -> list[BySource | None]:
    """Each run's groups, from the file of the set it ran (set name -> where the set came
    from); ``None`` for a set that came from no file (a provider's)."""
    found: list[BySource | None] = []
    for run in runs:
        where = Path(set_files.get(run.set_name, ""))
        found.append(by_label_source(run, where) if where.is_file() else None)
    return found


BySource = Mapping[str, GroupMetrics]
