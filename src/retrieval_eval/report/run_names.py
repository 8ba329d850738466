"""Names for runs shown side by side, by what differs between them.

Run ids are for copying, not for reading: a legend of "26d544hk / 4y42adqx" says nothing.
Each variant gets a letter (A, B, C in the order first shown, as history letters them;
a variant's later runs are A2, A3) and the parts of its variant label that the other runs
do not share (a model, a chunking, a pipeline, else where it ran); a run the user named
(``--label name=...``, or a retriever named in reval.toml) is called by that name instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from retrieval_eval.report.safe_text import visible

#: The label a user names a run with: ``reval eval --label name=bigger-chunks``.
NAME_LABEL = "name"
#: Longest name a legend shows whole.
SHOWN_NAME_CHARS = 40
#: Variant-label parts that say how a retriever was built (``variant_label``'s words).
PROVENANCE_PREFIXES = ("model ", "chunking ", "pipeline ")
#: A target that is a bare name (a retriever of reval.toml), not an address or plugin target.
_CONFIG_NAME = re.compile(r"[A-Za-z0-9_.-]+")
#: How variant labels separate their parts (see ``RetrieverDescription.variant_label``).
PART_SEPARATOR = " · "


@dataclass(frozen=True, slots=True)
class RunName:
    """How one run is called among the runs shown with it."""

    run_id: str
    #: A, B, C ... by position.
    letter: str
    #: The user's name for the run, or "" when it has none.
    given: str
    #: The variant parts no other run shares, e.g. "chunking words=50"; "" when none.
    differs: str
    #: The whole variant label (the legend says it in full).
    variant: str

    @property
    def tag(self) -> str:
        """For a narrow column head: the user's name, else the letter."""
        return _cut(self.given) if self.given else self.letter

    @property
    def short(self) -> str:
        """For a legend: the user's name, else the letter and the telling difference, never
        cut (the words every variant shares are elided instead: ``model … dims=64``)."""
        if self.given:
            return _cut(self.given)
        telling = _telling(self.differs)
        return f"{self.letter} · {telling}" if telling else self.letter


def letter(i: int) -> str:
    """A, B, ..., Z, AA, AB, ... for position ``i`` (0-based)."""
    letters = ""
    i += 1
    while i:
        i, rest = divmod(i - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def run_names(
    runs: Sequence[tuple[str, str, str, Mapping[str, str]]],
) -> list[RunName]:
    """Names for ``(run_id, variant label, target, labels)`` in the order shown."""
    variants = list(dict.fromkeys(variant for _, variant, _, _ in runs))
    own = dict(zip(variants, differing_parts(variants), strict=True)) if len(variants) > 1 else {}
    targets = {target for _, _, target, _ in runs}
    letters: dict[str, str] = {}
    seen: dict[str, int] = {}
    names = []
    for run_id, variant, target, labels in runs:
        given = labels.get(NAME_LABEL, "")
        if not given and len(targets) > 1 and _CONFIG_NAME.fullmatch(target):
            given = target
        first = letters.setdefault(variant, letter(len(letters)))
        seen[variant] = seen.get(variant, 0) + 1
        mark = first if seen[variant] == 1 else f"{first}{seen[variant]}"
        differs = PART_SEPARATOR.join(own.get(variant, ()))
        names.append(RunName(run_id, mark, given, differs, variant))
    return names


class NamedRun(Protocol):
    """What naming reads of a run (a comparison's ``RunColumn`` has it)."""

    @property
    def run_id(self) -> str: ...
    @property
    def variant(self) -> str: ...
    @property
    def retriever_target(self) -> str: ...
    @property
    def labels(self) -> Mapping[str, str]: ...


def names_of(runs: Sequence[NamedRun]) -> tuple[RunName, ...]:
    """``run_names`` of runs shown side by side, in their order."""
    return tuple(run_names([(r.run_id, r.variant, r.retriever_target, r.labels) for r in runs]))


def _telling(differs: str) -> str:
    """The build parts (model, chunking, pipeline) that differ, else the rest with a path
    or address cut to its last segment (``bm25:/tmp/x/big`` -> ``…/big``)."""
    parts = [p for p in differs.split(PART_SEPARATOR) if p]
    built = [p for p in parts if p.startswith(PROVENANCE_PREFIXES)]
    if built:
        return PART_SEPARATOR.join(built)
    return PART_SEPARATOR.join(_last_segment(p) for p in parts)


def _last_segment(part: str) -> str:
    head, _, tail = part.rstrip("/").rpartition("/")
    return f"…/{tail}" if head and tail else part


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_NAME_CHARS else text[: SHOWN_NAME_CHARS - 1] + "…"


def differing_parts(labels: Sequence[str]) -> list[tuple[str, ...]]:
    """For each distinct variant label, its parts that not every other label has, with
    the words shared by every part of the same kind elided (``_own_words``)."""
    parts = [label.split(PART_SEPARATOR) for label in labels]
    common = set.intersection(*map(set, parts)) if parts else set()
    differs = []
    for i, own in enumerate(parts):
        others = [p for j, ps in enumerate(parts) if j != i for p in ps]
        differs.append(tuple(visible(_own_words(p, others)) for p in own if p not in common))
    return differs


def _own_words(part: str, others: Sequence[str]) -> str:
    """``part`` with the words it shares with every other variant's part of the same kind
    (its first word: ``model``, ``pipeline``) elided: ``model … dims=64``. A word (a
    path, an address) is kept or elided whole, never cut."""
    kind, *words = part.split(" ")
    alike = [o.split(" ")[1:] for o in others if o.split(" ", 1)[0] == kind]
    if not words or not alike:
        return part
    shared = set.intersection(*(set(o) for o in alike))
    if all(word in shared for word in words):  # the same part, where others lack it
        return part
    kept: list[str] = [kind]
    for word in words:
        if word not in shared:
            kept.append(word)
        elif kept[-1] != "…":
            kept.append("…")
    return " ".join(kept)
