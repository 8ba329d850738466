"""Names for runs shown side by side, by what differs between them.

Run ids are for copying, not for reading: a legend of "26d544hk / 4y42adqx" says nothing.
Each run gets a letter (A, B, C in the order shown, as history letters variants) and the
parts of its variant label that the other runs do not share (a model, a chunking, a
target); a run the user named (``--label name=...``, or a retriever named in reval.toml)
is called by that name instead of its letter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: The label a user names a run with: ``reval eval --label name=bigger-chunks``.
NAME_LABEL = "name"
#: Longest name a legend shows whole.
SHOWN_NAME_CHARS = 48
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
    def short(self) -> str:
        """For a legend or a column head: the user's name, else letter and difference."""
        if self.given:
            return _cut(self.given)
        return _cut(f"{self.letter} · {self.differs}") if self.differs else self.letter


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
    parts = [variant.split(PART_SEPARATOR) for _, variant, _, _ in runs]
    common = set.intersection(*map(set, parts)) if len(parts) > 1 else set()
    targets = {target for _, _, target, _ in runs}
    names = []
    for i, ((run_id, variant, target, labels), own) in enumerate(zip(runs, parts, strict=True)):
        given = labels.get(NAME_LABEL, "")
        if not given and len(targets) > 1 and _CONFIG_NAME.fullmatch(target):
            given = target
        differs = PART_SEPARATOR.join(p for p in own if p not in common)
        names.append(RunName(run_id, letter(i), given, differs, variant))
    return names


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_NAME_CHARS else text[: SHOWN_NAME_CHARS - 1] + "…"
