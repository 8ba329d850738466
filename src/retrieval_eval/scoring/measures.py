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
  every judged grade. Not reval's binary ``binary_ndcg@k``, a metric key of its own.
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
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from retrieval_eval.errors import InputError
from retrieval_eval.records.metrics import MeasureMean
from retrieval_eval.records.outcome import QuestionOutcome

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
    no measure (it suggests ``nDCG@10``); reval's binary figure is the metric
    ``binary_ndcg@10``, never the graded one."""
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
    chosen = tuple(measures)
    values = _Question(ranked, grades, level).values(chosen)
    return dict(zip([m.name for m in chosen], values, strict=True))


class _Question:
    """One question's judged ranks, and each measure from them.

    Judgments are a handful and rankings up to a thousand: each judged document is looked
    up in the ranking by the tuple's own search (C), or for many judgments through a dict
    of the ranking, and every measure is computed from those few ranks (counts below a
    cut-off by bisection), never by walking the ranking again."""

    __slots__ = ("grades", "judged", "level", "relevant", "returned", "total")

    def __init__(self, ranked: Sequence[str], grades: Mapping[str, int], level: int) -> None:
        judged: list[tuple[int, int]] = []  # (rank, grade) of each judged document returned
        if len(grades) > 8:
            at = dict(zip(ranked, range(len(ranked)), strict=False))
            for doc, grade in grades.items():
                rank = at.get(doc)
                if rank is not None:
                    judged.append((rank, grade))
        else:
            index = ranked.index
            for doc, grade in grades.items():
                try:
                    judged.append((index(doc), grade))
                except ValueError:  # not returned
                    continue
        judged.sort()
        self.returned, self.judged, self.grades, self.level = len(ranked), judged, grades, level
        self.relevant = [rank for rank, grade in judged if grade >= level]
        self.total = sum(1 for grade in grades.values() if grade >= level)

    def values(self, measures: Sequence[Measure]) -> list[float | None]:
        return [self.value(m) for m in measures]

    def value(self, m: Measure) -> float | None:
        k, family, total, relevant = m.k, m.family, self.total, self.relevant
        found = len(relevant) if k is None else bisect_left(relevant, k)
        if family == "P":
            return found / k if k else None
        if family == "Judged":
            top = self.returned if k is None else min(k, self.returned)
            return bisect_left(self.judged, (top,)) / top if top else None
        if family == "nDCG":
            return self.ndcg(k)
        if not total:
            return None
        if family == "R":
            return found / total
        if family == "RR":
            return 1.0 / (relevant[0] + 1) if found else 0.0
        if family == "AP":
            return sum((n + 1) / (rank + 1) for n, rank in enumerate(relevant[:found])) / total
        if family == "Rprec":
            return bisect_left(relevant, total) / total
        if family == "Bpref":
            return self.bpref()
        raise AssertionError(family)

    def ndcg(self, k: int | None) -> float | None:
        ideal_gains = sorted((g for g in self.grades.values() if g > 0), reverse=True)
        if not ideal_gains:
            return None
        depth = self.returned if k is None else k
        dcg = math.fsum(
            g / math.log2(rank + 2) for rank, g in self.judged if g > 0 and rank < depth
        )
        cut = ideal_gains if k is None else ideal_gains[:k]
        return dcg / math.fsum(g / math.log2(rank + 2) for rank, g in enumerate(cut))

    def bpref(self) -> float:
        """trec_eval's bpref over the judged documents returned, in rank order."""
        level, total = self.level, self.total
        judged_not = sum(1 for grade in self.grades.values() if grade < level)
        above = 0
        score = 0.0
        for _, grade in self.judged:
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
    question's grades (questions matched by id; errors enter no mean). The same figures
    as ``mean_measures`` over ``question_measures``, a column per measure."""
    grades = {q.id: q.grades for q in questions}
    columns: list[list[float | None]] = [[] for _ in measures]
    unjudged_questions = 0
    for outcome in outcomes:
        if outcome.error is not None:
            continue
        judged = grades.get(outcome.question_id) or {}
        if trec_means and not judged:
            unjudged_questions += 1  # no topic in a qrels file: in no trec_eval mean
            continue
        values = _Question(outcome.ranked_document_ids, judged, level).values(measures)
        for column, value in zip(columns, values, strict=True):
            column.append(value)
    means = {}
    for m, column in zip(measures, columns, strict=True):
        got = (
            [0.0 if v is None else v for v in column]
            if trec_means
            else [v for v in column if v is not None]
        )
        mean = math.fsum(got) / len(got) if got else None
        left_out = unjudged_questions if trec_means else len(column) - len(got)
        means[m.name] = MeasureMean(mean, len(got), left_out)
    return means
