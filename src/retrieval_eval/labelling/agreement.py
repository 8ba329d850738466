"""Agreement between two judges: Cohen's kappa over relevance decisions.

The items are (question, candidate) pairs that BOTH judges decided, on questions both
judged; each judge's latest decision on a candidate counts (from the history). A decision
is a grade: a history entry's ``grades`` where it has them (a model's, a graded
judgement), else 1 for ``relevant`` and 0 for ``not_relevant``. At each grade threshold t
the decisions become "grade >= t" and, with p_o the share of items the judges agree on and
p_e the agreement expected by chance from each judge's own rate of "yes",

    kappa = (p_o - p_e) / (1 - p_e)

(Cohen 1960). When p_e is 1 (both judges gave one same answer to everything) kappa is
undefined and reported as ``None`` with the raw agreement. Its 95% interval uses the
large-sample standard error sqrt(p_o (1 - p_o) / n) / (1 - p_e), and ``more_needed`` is
how many more shared items would narrow it to +/- ``USEFUL_HALF_WIDTH``.

Two set files compare the same way (``labelling.label_grades.agreement_with_reference``):
one file's labels, or one judge's grades from its history, against the other file's
labels, on the (question, document) pairs both judged.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.document import load_document
from retrieval_eval.questions.labelling import LABELLING_KEY

Decisions = dict[tuple[str, str], bool]
Grades = dict[tuple[str, str], int]

#: An interval of kappa +/- this says whether agreement is fair, good or excellent.
USEFUL_HALF_WIDTH = 0.1
_Z = 1.959963984540054


@dataclass(frozen=True, slots=True)
class ThresholdAgreement:
    """Agreement on "grade >= threshold"."""

    threshold: int
    observed: float
    expected: float
    kappa: float | None
    low: float | None
    high: float | None
    #: More items both judge that would make the interval +/- USEFUL_HALF_WIDTH (0: it is).
    more_needed: int | None


@dataclass(frozen=True, slots=True)
class Agreement:
    judges: tuple[str, str]
    questions: int
    items: int
    #: Counts at the lowest threshold: both yes, only the first, only the second, neither.
    both: int
    first_only: int
    second_only: int
    neither: int
    observed: float
    expected: float
    kappa: float | None
    #: One entry per grade threshold the judges used (threshold 1 first).
    thresholds: tuple[ThresholdAgreement, ...] = ()
    #: (first's grade, second's grade) -> items.
    confusion: tuple[tuple[tuple[int, int], int], ...] = ()


def cohen_kappa(pairs: Sequence[tuple[bool, bool]]) -> tuple[float, float, float | None]:
    """(observed agreement, chance agreement, kappa) of paired binary decisions."""
    n = len(pairs)
    if n == 0:
        raise InputError("no decision made by both judges: nothing to compare")
    observed = sum(a == b for a, b in pairs) / n
    first = sum(a for a, _ in pairs) / n
    second = sum(b for _, b in pairs) / n
    expected = first * second + (1 - first) * (1 - second)
    kappa = None if expected == 1 else (observed - expected) / (1 - expected)
    return observed, expected, kappa


def at_threshold(pairs: Sequence[tuple[int, int]], threshold: int) -> ThresholdAgreement:
    binary = [(a >= threshold, b >= threshold) for a, b in pairs]
    observed, expected, kappa = cohen_kappa(binary)
    if kappa is None:
        return ThresholdAgreement(threshold, observed, expected, None, None, None, None)
    n = len(binary)
    spread = observed * (1 - observed)
    half = _Z * math.sqrt(spread / n) / (1 - expected)
    needed = math.ceil(spread * (_Z / (USEFUL_HALF_WIDTH * (1 - expected))) ** 2)
    return ThresholdAgreement(
        threshold, observed, expected, kappa, max(-1.0, kappa - half), min(1.0, kappa + half),
        max(0, needed - n),
    )  # fmt: skip


def judge_grades(document: Any) -> dict[str, Grades]:
    """Judge -> (question id, document id) -> their latest grade, from the histories."""
    grades: dict[str, Grades] = {}
    for question in document["questions"]:
        labelling = question.get(LABELLING_KEY) or {}
        candidates = [c["document_id"] for c in labelling.get("candidates") or []]
        qid = str(question["id"])
        for entry in labelling.get("history") or []:
            mine = grades.setdefault(str(entry.get("by")), {})
            if entry.get("nothing_answers"):
                mine.update({(qid, d): 0 for d in candidates})
            mine.update({(qid, d): 1 for d in entry.get("relevant") or []})
            mine.update({(qid, d): 0 for d in entry.get("not_relevant") or []})
            for doc, grade in (entry.get("grades") or {}).items():
                if isinstance(grade, int) and not isinstance(grade, bool):
                    mine[(qid, str(doc))] = max(0, grade)
    return grades


def judge_decisions(document: Any) -> dict[str, Decisions]:
    """Judge -> (question id, document id) -> relevant or not (grade >= 1)."""
    return {
        judge: {item: grade >= 1 for item, grade in grades.items()}
        for judge, grades in judge_grades(document).items()
    }


def agreement(path: Path, judges: Iterable[str] = ()) -> Agreement:
    """Cohen's kappa between two judges of the set file ``path`` (the only two, or the
    two named), at every grade threshold they used."""
    document, _ = load_document(path)
    grades = judge_grades(document)
    chosen = tuple(judges) or tuple(sorted(grades))
    if len(chosen) != 2:
        found = ", ".join(sorted(grades)) or "none"
        raise InputError(f"{path}: name two judges to compare (judges in the file: {found})")
    missing = [j for j in chosen if j not in grades]
    if missing:
        raise InputError(f"{path}: no judgement by {', '.join(missing)}")
    return compare(grades[chosen[0]], grades[chosen[1]], (chosen[0], chosen[1]))


def compare(a: Grades, b: Grades, judges: tuple[str, str]) -> Agreement:
    """The agreement of two judges' grades on the items both gave."""
    shared = sorted(a.keys() & b.keys())
    pairs = [(a[k], b[k]) for k in shared]
    levels = sorted({g for pair in pairs for g in pair if g >= 1}) or [1]
    thresholds = tuple(at_threshold(pairs, t) for t in levels)
    binary = [(x >= 1, y >= 1) for x, y in pairs]
    first = thresholds[0]
    return Agreement(
        judges=judges,
        questions=len({q for q, _ in shared}),
        items=len(pairs),
        both=sum(x and y for x, y in binary),
        first_only=sum(x and not y for x, y in binary),
        second_only=sum(y and not x for x, y in binary),
        neither=sum(not x and not y for x, y in binary),
        observed=first.observed,
        expected=first.expected,
        kappa=first.kappa,
        thresholds=thresholds,
        confusion=tuple(sorted(Counter(pairs).items())),
    )
