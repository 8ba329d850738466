"""Judged@k as every format says it: one wording, one number format, one JSON shape.

The figure is ``scoring.judged``'s; a view shows it only for a set that records
judgments (``judged_at_k`` is None otherwise, and the view shows nothing new).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from retrieval_eval.report.plural import plural
from retrieval_eval.scoring.judged import JudgedAtK, JudgedShare, judged_rows


def meaning(k: int) -> str:
    """What the figure means, said once under each view's table."""
    return (
        f"Judged@{k}: the mean share of each question's {k} best distinct documents that "
        "the set judged, over the questions that got documents back; unjudged documents "
        "count as not relevant, so a low figure means the labels are stale for this "
        "retriever: judge them (reval sets judge) before trusting its rates."
    )


def value_text(share: JudgedShare | None) -> str:
    return "-" if share is None or share.value is None else f"{share.value:.3f}"


def share_text(share: JudgedShare | None) -> str:
    """``0.933 (15 questions, 3 unjudged)``; ``-`` for a group the run has no figure for."""
    if share is None or share.value is None:
        return "-"
    return f"{share.value:.3f} ({plural(share.count, 'question')}, {share.unjudged} unjudged)"


def group_label(kind: str, name: str) -> str:
    """``overall``, ``form MATCH``, ``class near-duplicate``."""
    return {"overall": "overall", "form": f"form {name}"}.get(kind, f"class {name}")


def share_of(judged: JudgedAtK | None, kind: str, name: str) -> JudgedShare | None:
    """One group's share (kind ``overall``, ``form`` or ``hard_class``), if the run has it."""
    if judged is None:
        return None
    if kind == "overall":
        return judged.overall
    groups = judged.by_form if kind == "form" else judged.by_hard_class
    return groups.get(name)


def share_to_dict(share: JudgedShare) -> dict[str, Any]:
    return {"value": share.value, "count": share.count, "unjudged": share.unjudged}


def judged_to_dict(judged: JudgedAtK) -> dict[str, Any]:
    """The JSON key ``judged``: ``{"measure", "k", "overall", "by_form",
    "by_hard_class"}``, each share ``{"value", "count", "unjudged"}``."""
    return {
        "measure": judged.name,
        "k": judged.k,
        "overall": share_to_dict(judged.overall),
        "by_form": {name: share_to_dict(s) for name, s in judged.by_form.items()},
        "by_hard_class": {name: share_to_dict(s) for name, s in judged.by_hard_class.items()},
    }


_KINDS = ("overall", "form", "hard_class")


@dataclass(frozen=True, slots=True)
class JudgedRow:
    """One group across the runs a view shows (one run: the run report)."""

    kind: str  # "overall", "form" or "hard_class"
    name: str
    label: str  # as people read it: "form MATCH"
    #: Each run's share, in run order; None where the run has no such group or none.
    shares: tuple[JudgedShare | None, ...]


@dataclass(frozen=True, slots=True)
class JudgedTable:
    """What the HTML views lay out (``judged.html.j2``, ``judged_compare.html.j2``)."""

    name: str  # "Judged@3"
    k: int
    meaning: str
    rows: tuple[JudgedRow, ...]


def judged_table(runs: Sequence[JudgedAtK | None]) -> JudgedTable | None:
    """The groups of every run that has Judged@k, each with every run's share; None when
    no run has it. The name and k are the first such run's (a comparison computes every
    run's at its reference's k)."""
    present = [j for j in runs if j is not None]
    if not present:
        return None
    keys = sorted(
        {(kind, name) for j in present for kind, name, _ in judged_rows(j)},
        key=lambda key: (_KINDS.index(key[0]), key[1]),
    )
    rows = tuple(
        JudgedRow(kind, name, group_label(kind, name), tuple(share_of(j, kind, name) for j in runs))
        for kind, name in keys
    )
    first = present[0]
    return JudgedTable(first.name, first.k, meaning(first.k), rows)
