"""Agreement between two judges: Cohen's kappa over relevance decisions.

The items are (question, candidate) pairs that BOTH judges decided, on questions both
judged; each judge's latest decision on a candidate counts (from the history). With
p_o the share of items they agree on and p_e the agreement expected by chance from each
judge's own rate of "relevant",

    kappa = (p_o - p_e) / (1 - p_e)

(Cohen 1960). When p_e is 1 (both judges gave one same answer to everything) kappa is
undefined and reported as ``None`` with the raw agreement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval_eval.errors import InputError
from retrieval_eval.labelling.document import load_document
from retrieval_eval.questions.labelling import LABELLING_KEY

Decisions = dict[tuple[str, str], bool]


@dataclass(frozen=True, slots=True)
class Agreement:
    judges: tuple[str, str]
    questions: int
    items: int
    #: Counts: both relevant, only the first, only the second, neither.
    both: int
    first_only: int
    second_only: int
    neither: int
    observed: float
    expected: float
    kappa: float | None


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


def judge_decisions(document: Any) -> dict[str, Decisions]:
    """Judge -> (question id, document id) -> their latest decision, from the histories."""
    decisions: dict[str, Decisions] = {}
    for question in document["questions"]:
        labelling = question.get(LABELLING_KEY) or {}
        candidates = [c["document_id"] for c in labelling.get("candidates") or []]
        for entry in labelling.get("history") or []:
            mine = decisions.setdefault(str(entry.get("by")), {})
            qid = str(question["id"])
            if entry.get("nothing_answers"):
                mine.update({(qid, d): False for d in candidates})
            mine.update({(qid, d): True for d in entry.get("relevant") or []})
            mine.update({(qid, d): False for d in entry.get("not_relevant") or []})
    return decisions


def agreement(path: Path, judges: Iterable[str] = ()) -> Agreement:
    """Cohen's kappa between two judges of the set file ``path`` (the only two, or the
    two named)."""
    document, _ = load_document(path)
    decisions = judge_decisions(document)
    chosen = tuple(judges) or tuple(sorted(decisions))
    if len(chosen) != 2:
        found = ", ".join(sorted(decisions)) or "none"
        raise InputError(f"{path}: name two judges to compare (judges in the file: {found})")
    missing = [j for j in chosen if j not in decisions]
    if missing:
        raise InputError(f"{path}: no judgement by {', '.join(missing)}")
    a, b = decisions[chosen[0]], decisions[chosen[1]]
    shared = sorted(a.keys() & b.keys())
    pairs = [(a[k], b[k]) for k in shared]
    observed, expected, kappa = cohen_kappa(pairs)
    return Agreement(
        judges=(chosen[0], chosen[1]),
        questions=len({q for q, _ in shared}),
        items=len(pairs),
        both=sum(x and y for x, y in pairs),
        first_only=sum(x and not y for x, y in pairs),
        second_only=sum(y and not x for x, y in pairs),
        neither=sum(not x and not y for x, y in pairs),
        observed=observed,
        expected=expected,
        kappa=kappa,
    )
