"""Stratified, seeded k-fold cross-validation of a grid search.

Folds: within each form (MATCH, GAP, ...) the questions are shuffled with
``random.Random(seed)`` and dealt round-robin to the folds, so every fold holds each form
in proportion and the same seed gives the same folds. For each fold, the setting with the
best mean on the OTHER folds is chosen (ties: the earlier in the grid) and scored on the
held-out fold. Every question is held out exactly once, so the held-out hits form one
outcome per question: an honest estimate of what tuning buys, with its interval.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from retrieval_eval.errors import InputError


def stratified_folds(strata: Sequence[str], folds: int, seed: int) -> list[int]:
    """The fold (0-based) of each question, given each question's stratum (its form)."""
    if folds < 2:
        raise InputError(f"invalid --folds {folds}: cross-validation needs at least 2")
    if folds > len(strata):
        raise InputError(f"--folds {folds} is more than the set's {len(strata)} questions")
    rng = random.Random(seed)
    assignment = [0] * len(strata)
    offset = 0
    for stratum in sorted(set(strata)):
        members = [i for i, s in enumerate(strata) if s == stratum]
        rng.shuffle(members)
        for n, index in enumerate(members):
            assignment[index] = (offset + n) % folds
        offset += len(members)  # the next stratum continues where this one stopped
    return assignment


@dataclass(frozen=True, slots=True)
class CrossValidation:
    #: The held-out hit of each question (under the setting its fold's training chose).
    held_out: tuple[bool, ...]
    #: The grid index chosen for each fold.
    chosen: tuple[int, ...]


def best_setting(hits: Sequence[Sequence[bool]], questions: Sequence[int]) -> int:
    """The grid index with the most hits over ``questions`` (ties: the earliest)."""
    best, best_count = 0, -1
    for index, row in enumerate(hits):
        count = sum(row[q] for q in questions)
        if count > best_count:
            best, best_count = index, count
    return best


def cross_validate(hits: Sequence[Sequence[bool]], fold_of: Sequence[int]) -> CrossValidation:
    """``hits[setting][question]`` -> the held-out outcome of tuning on the other folds."""
    folds = max(fold_of) + 1
    held_out = [False] * len(fold_of)
    chosen = []
    for fold in range(folds):
        train = [q for q, f in enumerate(fold_of) if f != fold]
        pick = best_setting(hits, train)
        chosen.append(pick)
        for q, f in enumerate(fold_of):
            if f == fold:
                held_out[q] = hits[pick][q]
    return CrossValidation(tuple(held_out), tuple(chosen))
