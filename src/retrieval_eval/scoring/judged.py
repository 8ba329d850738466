"""Judged@k of a run: how much of what a retriever returns the labels have judged.

A set that records judgments (grades, negatives) says which documents were looked at;
everything else is *unjudged*, and counts as not relevant. When a retriever brings back
many unjudged documents, its hit rates rest on guesses: the set has gone stale for it.
This is the figure that tells a team so, per run, per form and per hard class.

- k is the run's report depth: the largest k it reports hit rates at (3 by default); a
  comparison takes its reference's for every run.
- A question's Judged@k is the share of its k best distinct documents (of as many as came
  back, if fewer) that carry a judgment: ``measures``' ``Judged@k``, as ir-measures
  computes it. The figure is its mean over the questions answered with something back
  (``count``); a question that got nothing back has no Judged@k, a failed retrieval is
  never counted. ``unjudged`` counts the documents without a judgment in those top-k lists.
- Only for sets that record judgments (``RunResult.judgments`` non-empty): a plain list
  of expected ids judges nothing else, so every other document would read as unjudged and
  the figure would say nothing about the set.

Derived from the stored outcomes and the stored judgments, so a run read back from the
store or rescored against new labels gets it too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from retrieval_eval.records.outcome import UNCLASSIFIED
from retrieval_eval.records.run import RunResult
from retrieval_eval.scoring.measures import unjudged


@dataclass(frozen=True, slots=True)
class JudgedShare:
    """Judged@k over one group of questions."""

    #: Mean Judged@k over ``count`` questions; None when no question counts.
    value: float | None
    #: Questions answered with at least one document (the mean's denominator).
    count: int
    #: Documents without a judgment in those questions' top-k lists.
    unjudged: int


@dataclass(frozen=True, slots=True)
class JudgedAtK:
    """A run's Judged@k overall, by form and by hard class (groups sorted by name, as
    the run's own breakdowns)."""

    k: int
    overall: JudgedShare
    by_form: Mapping[str, JudgedShare]
    by_hard_class: Mapping[str, JudgedShare]

    @property
    def name(self) -> str:
        """The ir_measures name, ``Judged@3``."""
        return f"Judged@{self.k}"


def judged_at_k(run: RunResult, k: int | None = None) -> JudgedAtK | None:
    """The run's Judged@k at its report depth (or at ``k``: a comparison uses its
    reference's for every run); None for a set that records no judgments (see the
    module docstring)."""
    if not run.judgments:
        return None
    k = k or max(run.parameters.ks)
    overall = _Sum()
    forms: dict[str, _Sum] = {}
    classes: dict[str, _Sum] = {}
    for q in run.questions:
        groups = (
            overall,
            forms.setdefault(q.form.value, _Sum()),
            classes.setdefault(q.hard_class or UNCLASSIFIED, _Sum()),
        )
        top = q.ranked_document_ids[:k]
        if q.error is not None or not top:
            continue
        missing = unjudged(top, run.grades_of(q))
        for group in groups:
            group.add(len(top), missing)
    return JudgedAtK(k, overall.share(), _shares(forms), _shares(classes))


class _Sum:
    __slots__ = ("count", "total", "unjudged")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.unjudged = 0

    def add(self, returned: int, missing: int) -> None:
        self.count += 1
        self.total += (returned - missing) / returned
        self.unjudged += missing

    def share(self) -> JudgedShare:
        value = self.total / self.count if self.count else None
        return JudgedShare(value, self.count, self.unjudged)


def _shares(groups: Mapping[str, _Sum]) -> dict[str, JudgedShare]:
    return {name: groups[name].share() for name in sorted(groups)}


def judged_rows(judged: JudgedAtK) -> Iterable[tuple[str, str, JudgedShare]]:
    """(kind, name, share) for overall, each form, each hard class: the rows every
    view lays out (kind ``overall``, ``form`` or ``hard_class``)."""
    yield "overall", "overall", judged.overall
    for name, share in judged.by_form.items():
        yield "form", name, share
    for name, share in judged.by_hard_class.items():
        yield "hard_class", name, share
