"""A lineage's history on several versions of its labels: which version each run was
scored on, and the same rankings side by side on each.

Labels grow (a person judges the documents a new retriever brought up) and ``reval runs
rescore`` scores stored rankings on the new version as new runs. A history that mixes
versions must tell them apart: figures on other labels measure other things, a hit that
moved because a judgment did is not flakiness, and the before/after a team wants is the
same rankings on the old and the new labels. A version is named by its set fingerprint's
first hex digits, which stay the same in every view and in every later history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from retrieval_eval.errors import InputError

if TYPE_CHECKING:  # importing store/ would load SQLAlchemy
    from retrieval_eval.comparison.results import HistoryEntry
    from retrieval_eval.store.stored_run import StoredRun

#: Hex digits of the fingerprint that name a version.
NAME_DIGITS = 8
#: ``--label-version`` values besides a fingerprint (prefix): every version, the newest run's.
ALL, LATEST = "all", "latest"


def version_name(fingerprint: str) -> str:
    """``3fa2c1d0`` for ``sha256:3fa2c1d0...``: short, and stable across histories."""
    digest = fingerprint.split(":", 1)[-1]
    return digest[:NAME_DIGITS] or "(none)"


@dataclass(frozen=True, slots=True)
class LabelVersion:
    """One version of the labels in a history, oldest first."""

    name: str
    fingerprint: str
    runs: int
    #: Of those, how many are rescores (stored rankings scored again on this version).
    rescored: int


@dataclass(frozen=True, slots=True)
class SideBySide:
    """One stored ranking and its rescores: the entry scored on each label version."""

    #: The run whose retriever was asked (the first of the chain of rescores).
    source_run_id: str
    variant: str
    #: Label version name -> the entry scored on it (versions the run lacks are absent).
    by_version: Mapping[str, HistoryEntry]


def label_versions(oldest_first: Sequence[HistoryEntry]) -> tuple[LabelVersion, ...]:
    counts: dict[str, list[int]] = {}
    for e in oldest_first:
        tally = counts.setdefault(e.set_fingerprint, [0, 0])
        tally[0] += 1
        tally[1] += e.rescored_from is not None
    return tuple(
        LabelVersion(version_name(fp), fp, runs, rescored)
        for fp, (runs, rescored) in counts.items()
    )


def side_by_side(newest_first: Sequence[HistoryEntry]) -> tuple[SideBySide, ...]:
    """Each source run (newest first) with its rescores, when the history holds more than
    one label version; a rescore whose source is outside the history stands for itself."""
    if len({e.set_fingerprint for e in newest_first}) < 2:
        return ()
    by_id = {e.run_id: e for e in newest_first}

    def root(e: HistoryEntry) -> HistoryEntry:
        seen = {e.run_id}
        while e.rescored_from is not None and e.rescored_from in by_id:
            e = by_id[e.rescored_from]
            if e.run_id in seen:  # a cycle cannot be stored; never loop on one
                break
            seen.add(e.run_id)
        return e

    groups: dict[str, dict[str, HistoryEntry]] = {}
    for e in reversed(newest_first):  # oldest first: a version's newest rescore wins
        groups.setdefault(root(e).run_id, {})[version_name(e.set_fingerprint)] = e
    order = [e.run_id for e in newest_first if e.run_id in groups]
    return tuple(SideBySide(run_id, by_id[run_id].variant, groups[run_id]) for run_id in order)


def shown_label(selected: Sequence[StoredRun], which: str) -> str:
    """What ``select_labels(..., which)`` chose, as views name it: ``all``, or the one
    version's name (``which`` may have been ``latest`` or a prefix)."""
    if which == ALL or not selected:
        return ALL
    return version_name(selected[0].run.set_fingerprint)


def select_labels(stored: Sequence[StoredRun], which: str) -> list[StoredRun]:
    """The runs scored on one label version: ``all``, ``latest`` (the newest run's) or a
    fingerprint, whole or a prefix of its hex digits; an unknown or ambiguous one is bad
    input naming the versions there are."""
    if which == ALL or not stored:
        return list(stored)
    newest = max(stored, key=lambda s: s.run.started_at)
    versions = list(dict.fromkeys(s.run.set_fingerprint for s in stored))
    if which == LATEST:
        chosen = newest.run.set_fingerprint
    else:
        digits = which.split(":", 1)[-1].lower()
        matches = [fp for fp in versions if fp.split(":", 1)[-1].lower().startswith(digits)]
        known = ", ".join(version_name(fp) for fp in versions)
        if not digits or not matches:
            raise InputError(f"--label-version {which!r}: no run here was scored on those labels "
                             f"(label versions: {known})")  # fmt: skip
        if len(matches) > 1:
            raise InputError(f"--label-version {which!r} names {len(matches)} label versions "
                             f"({known}): give more digits")  # fmt: skip
        chosen = matches[0]
    return [s for s in stored if s.run.set_fingerprint == chosen]
