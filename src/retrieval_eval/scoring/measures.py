"""The IR measures beside the hit rates, named as ir_measures names them, as trec_eval
computes them.

Each takes one question's ranking (distinct documents, best first: the protocol's
``ranked_document_ids``) and its judgments (document id -> grade >= 0); a document is
relevant when its grade reaches the relevance level, judged when it has any grade.

- ``P@k``: relevant documents among the k best, over k (fewer returned still divides by k).
- ``R@k``: relevant documents among the k best, over the relevant ones.
- ``RR`` / ``RR@k``: 1 / the rank of the first relevant document (0 if none, or none by k).
- ``AP`` / ``AP@k``: the mean over the relevant documents of the precision at each one's
  rank (0 for one not returned, or not by k): trec_eval's ``map`` / ``map_cut_k``.
- ``Rprec``: precision at rank R, R the number of relevant documents.
- ``Bpref``: trec_eval's bpref: for each relevant document returned, one minus the share
  of judged non-relevant documents above it (at most R of them, over min(R, N), N the
  judged non-relevant ones), over R. Unjudged documents are passed over.
- ``nDCG`` / ``nDCG@k``: graded, with trec_eval's gains: a document's gain is its grade
  (whatever the relevance level), discounted by log2(rank + 1); over the ideal ordering of
  every judged grade. Not reval's binary ``ndcg@k``, which keeps its own key.
- ``Judged@k``: the share of the k best documents (of as many as came back, if fewer)
  that carry a judgment, as ir-measures computes it.
- ``unjudged``: how many of the returned documents carry no judgment.

No-answer rule, one per measure: ``P@k`` is defined for every answered question;
``Judged@k`` for one that got something back. The others are undefined for a question with
nothing to find (no relevant document; for nDCG no document graded above 0): by default
such a question is left out of their means (as reval leaves it out of MRR and recall), and
with ``trec_means`` it scores 0 in them, which is what trec_eval 10 does with a judged
topic, so the means equal its own (``mean_measures`` says which questions count). Failed
retrievals enter no mean in either convention.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from retrieval_eval.errors import InputError
from retrieval_eval.records import MeasureMean, QuestionOutcome

#: ir_measures' families this module computes, and whether each takes a cut-off:
#: "required", "optional" or "none".
FAMILIES = {
    "P": "required",
    "R": "required",
    "RR": "optional",
    "AP": "optional",
    "Rprec": "none",
    "Bpref": "none",
    "nDCG": "optional",
    "Judged": "required",
}
#: Other spellings ir_measures reads as the same measure.
ALIASES = {"MAP": "AP", "MRR": "RR"}
#: What ``--measures`` means when it is not given.
DEFAULT_MEASURES = "P@10,AP,Rprec,Bpref,RR,R@100,nDCG@10,Judged@10"

_NAME = re.compile(r"^(?P<family>[A-Za-z]+)(?:@(?P<k>[1-9][0-9]{0,5}))?$")


@dataclass(frozen=True, slots=True, order=True)
class Measure:
    family: str
    k: int | None = None

    @property
    def name(self) -> str:
        """The canonical ir_measures name: ``P@10``, ``AP``, ``nDCG@10``."""
        return self.family if self.k is None else f"{self.family}@{self.k}"

    def __str__(self) -> str:
        return self.name


def parse_measure(text: str) -> Measure:
    """One ir_measures name (``P@10``, ``AP``, ``MAP``, ``nDCG@10``); ``InputError``
    naming it otherwise. Names are case-sensitive, as ir_measures' are: ``ndcg@10`` is
    reval's binary nDCG, never the graded one."""
    found = _NAME.match(text.strip())
    family = ALIASES.get(found["family"], found["family"]) if found else ""
    if found is None or family not in FAMILIES:
        hint = ""
        if found is not None:
            near = [f for f in FAMILIES if f.lower() == found["family"].lower()]
            cut = "@" + found["k"] if found["k"] else ""
            hint = f"; did you mean {near[0]}{cut}?" if near else ""
        known = ", ".join(f"{f}@k" if FAMILIES[f] == "required" else f for f in FAMILIES)
        raise InputError(f"unknown measure {text.strip()!r}{hint} (known: {known})")
    k = int(found["k"]) if found["k"] else None
    rule = FAMILIES[family]
    if rule == "required" and k is None:
        raise InputError(f"measure {family} needs a cut-off: {family}@10, for instance")
    if rule == "none" and k is not None:
        raise InputError(f"measure {family} takes no cut-off (got {text.strip()!r})")
    return Measure(family, k)


def parse_measures(text: str) -> tuple[Measure, ...]:
    """A comma-separated list of names, each once, in the order given."""
    measures = [parse_measure(part) for part in text.split(",") if part.strip()]
    if not measures:
        raise InputError("give at least one measure, e.g. P@10,AP,nDCG@10")
    return tuple(dict.fromkeys(measures))


def question_measures(
    ranked: Sequence[str],
    grades: Mapping[str, int],
    measures: Iterable[Measure],
    level: int = 1,
) -> dict[str, float | None]:
    """Each measure's value for one question; ``None`` where it is undefined (see the
    module docstring). ``ranked`` holds distinct documents."""
    relevant = [rank for rank, doc in enumerate(ranked) if grades.get(doc, 0) >= level]
    total = sum(1 for grade in grades.values() if grade >= level)
    values: dict[str, float | None] = {}
    for m in measures:
        values[m.name] = _value(m, ranked, grades, level, relevant, total)
    return values


def _value(
    m: Measure,
    ranked: Sequence[str],
    grades: Mapping[str, int],
    level: int,
    relevant: list[int],
    total: int,
) -> float | None:
    k = m.k
    within = relevant if k is None else [rank for rank in relevant if rank < k]
    family = m.family
    if family == "P":
        return len(within) / k if k else None
    if family == "Judged":
        top = ranked[:k]
        return sum(1 for doc in top if doc in grades) / len(top) if top else None
    if family == "nDCG":
        return _ndcg(ranked, grades, k)
    if not total:
        return None
    if family == "R":
        return len(within) / total
    if family == "RR":
        return 1.0 / (within[0] + 1) if within else 0.0
    if family == "AP":
        return sum((n + 1) / (rank + 1) for n, rank in enumerate(within)) / total
    if family == "Rprec":
        return sum(1 for rank in relevant if rank < total) / total
    if family == "Bpref":
        return _bpref(ranked, grades, level, total)
    raise AssertionError(family)


def _ndcg(ranked: Sequence[str], grades: Mapping[str, int], k: int | None) -> float | None:
    ideal_gains = sorted((g for g in grades.values() if g > 0), reverse=True)
    if not ideal_gains:
        return None
    depth = len(ranked) if k is None else min(k, len(ranked))
    dcg = sum(grades.get(ranked[rank], 0) / math.log2(rank + 2) for rank in range(depth)
              if grades.get(ranked[rank], 0) > 0)  # fmt: skip
    cut = ideal_gains if k is None else ideal_gains[:k]
    ideal = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(cut))
    return dcg / ideal


def _bpref(ranked: Sequence[str], grades: Mapping[str, int], level: int, total: int) -> float:
    judged_not = sum(1 for grade in grades.values() if grade < level)
    above = 0
    score = 0.0
    for doc in ranked:
        grade = grades.get(doc)
        if grade is None:
            continue
        if grade < level:
            above += 1
        elif above:
            score += 1.0 - min(above, total) / min(judged_not, total)
        else:
            score += 1.0
    return score / total


def unjudged(ranked: Sequence[str], grades: Mapping[str, int]) -> int:
    """How many returned documents carry no judgment."""
    return sum(1 for doc in ranked if doc not in grades)


@dataclass(frozen=True, slots=True)
class QuestionFigures:
    """One answered question's values (``question_measures``) and whether it carries any
    judgment at all (a question with none has no line a qrels file could hold)."""

    values: Mapping[str, float | None]
    judged: bool


class GradedQuestion(Protocol):
    """What ``run_measures`` reads of a question (a ``GoldenQuestion`` has it)."""

    @property
    def id(self) -> str: ...

    @property
    def grades(self) -> Mapping[str, int]: ...


def mean_measures(
    questions: Iterable[QuestionFigures],
    measures: Iterable[Measure],
    *,
    trec_means: bool = False,
) -> dict[str, MeasureMean]:
    """Each measure's mean over the answered questions' values.

    By default a question where a measure is undefined is left out of that mean. With
    ``trec_means`` the convention is trec_eval's over its qrels (``trec_eval -c``): every
    question with a judgment counts, an undefined value as 0, and a question without any
    judgment (no topic in a qrels file) is left out of every mean. Sums are exact
    (``math.fsum``): the order of questions never changes a figure."""
    names = [m.name for m in measures]
    values: dict[str, list[float]] = {name: [] for name in names}
    left_out = dict.fromkeys(names, 0)
    for q in questions:
        for name in names:
            value = q.values.get(name)
            if trec_means and not q.judged:
                left_out[name] += 1
            elif value is not None:
                values[name].append(value)
            elif trec_means:
                values[name].append(0.0)
            else:
                left_out[name] += 1
    means = {}
    for name in names:
        got = values[name]
        mean = math.fsum(got) / len(got) if got else None
        means[name] = MeasureMean(mean, len(got), left_out[name])
    return means


def run_measures(
    outcomes: Iterable[QuestionOutcome],
    questions: Iterable[GradedQuestion],
    measures: Sequence[Measure],
    *,
    level: int = 1,
    trec_means: bool = False,
) -> dict[str, MeasureMean]:
    """The measures' means over a run: each answered outcome's ranking against its
    question's grades (questions matched by id; errors enter no mean)."""
    grades = {q.id: q.grades for q in questions}
    figures = []
    for outcome in outcomes:
        if outcome.error is not None:
            continue
        judged = grades.get(outcome.question_id, {})
        values = question_measures(outcome.ranked_document_ids, judged, measures, level)
        figures.append(QuestionFigures(values, bool(judged)))
    return mean_measures(figures, measures, trec_means=trec_means)
