"""Short names for the variants a text view shows, and the legend of what differs.

A variant label (``bm25 0.1.0 · chunking words=150,overlap=30 · bm25:/data/big``) is
too long for a table column: wrapped, it splits paths and pipelines over many lines. A
table shows a name instead: the one the user gave (``reval eval --variant-name``, stored
as the run's ``name`` label), else the lineage's name (a reval.toml name, else the
retriever's identifier) and a letter, ``bm25-A``, ``bm25-B``, lettered oldest first.
Letters follow the runs shown: ``runs show`` names a run's whole provenance.
Under the table a legend says, for each name, the parts of its label the other variants
of the same name do not share; the full provenance is ``reval runs show RUN`` away.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from retrieval_eval.report.run_names import NAME_LABEL, PART_SEPARATOR, differing_parts, letter
from retrieval_eval.report.safe_text import visible

#: A target that is a bare name (a retriever of reval.toml), not an address or plugin target.
_CONFIG_NAME = re.compile(r"[A-Za-z0-9_.-]+")
#: Where the legend sends people for everything a run was made with.
FULL_PROVENANCE = "full provenance: reval runs show RUN"


@dataclass(frozen=True, slots=True)
class ShownVariant:
    """One run as naming reads it."""

    #: What makes two runs the same variant (the variant label will do).
    key: str
    #: The variant label, parts joined by ``PART_SEPARATOR``.
    label: str
    identifier: str
    target: str
    labels: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class VariantName:
    #: ``bm25-A``, or the name the user gave.
    name: str
    #: The label's parts no other variant of the same lineage name shares.
    differs: tuple[str, ...]


def lineage_name(identifier: str, target: str) -> str:
    """A reval.toml name when the target is one, else the retriever's identifier."""
    return target if _CONFIG_NAME.fullmatch(target) else identifier or target


def name_variants(shown: Iterable[ShownVariant]) -> dict[str, VariantName]:
    """Names by variant key for runs given oldest first (the first variant seen is A)."""
    members: dict[str, list[ShownVariant]] = {}
    given: dict[str, str] = {}
    seen: set[str] = set()
    for run in shown:
        if run.labels.get(NAME_LABEL):
            given[run.key] = run.labels[NAME_LABEL]  # the newest name given wins
        if run.key not in seen:
            seen.add(run.key)
            members.setdefault(lineage_name(run.identifier, run.target), []).append(run)
    names: dict[str, VariantName] = {}
    for group, variants in members.items():
        differs = differing_parts([v.label for v in variants])
        lettered = 0  # letters go to the variants without a given name only
        for variant, own in zip(variants, differs, strict=True):
            name = given.get(variant.key)
            if not name:
                name, lettered = f"{group}-{letter(lettered)}", lettered + 1
            names[variant.key] = VariantName(visible(name), own)
    return names


def legend_lines(names: Sequence[VariantName], width: int, indent: int = 2) -> list[str]:
    """One entry per name with something that differs, wrapped at spaces to ``width``.
    A path or token is never split: one too long for the indented column starts its own
    line at the margin, and only a token longer than ``width`` overflows it."""
    shown = [n for n in names if n.differs]
    if not shown:
        return []
    column = max(len(n.name) for n in shown)
    lines = []
    for n in shown:
        head = " " * indent + n.name.ljust(column) + "  "
        lines += wrap_words(PART_SEPARATOR.join(n.differs), width, head, " " * len(head))
    return lines


def wrap_words(text: str, width: int, first: str = "", then: str = "") -> list[str]:
    """``text`` wrapped at spaces after the prefixes ``first`` and ``then``, never inside
    a word (one that does not fit after the prefix gets a line of its own)."""
    lines: list[str] = []
    line, bare = first, True  # bare: nothing but the prefix on the line yet
    for word in text.split():
        if not bare and len(line) + 1 + len(word) <= width:
            line += " " + word
            continue
        if not bare:
            lines.append(line)
            line = then
        if len(line) + len(word) > width:  # the prefix leaves no room for the word
            if line.strip():
                lines.append(line.rstrip())
            line = ""
        line += word
        bare = False
    lines.append(line.rstrip())
    return lines
