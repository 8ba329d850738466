"""Label checks from stored runs of the set: ``suspect-label`` and ``no-signal``.

Only outcomes scored against the question's current label count (same expected ids), so
runs made before a label was fixed say nothing about the fixed label. Failed retrievals
count for nothing. Both checks need the runs of at least ``min_retrievers`` distinct
retrievers: one retriever always agrees with itself.

- ``suspect-label``: no expected document ever appeared in any ranking, and every run put
  the same other document at rank 1. The label may be wrong; that document is named.
- ``no-signal``: every run hit the question at every cutoff, or missed it at every
  cutoff. It cannot tell these retrievers apart (fine for a few; a set of them is inert).

Runs are read structurally (``StoredRun``), so any run record with these fields will do.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from retrieval_eval.questions.lint.findings import Finding, FindingKind
from retrieval_eval.questions.lint.options import DEFAULT_MIN_RETRIEVERS
from retrieval_eval.questions.model import GoldenQuestion


class StoredOutcome(Protocol):
    @property
    def question_id(self) -> str: ...
    @property
    def expected_document_ids(self) -> tuple[str, ...]: ...
    @property
    def ranked_document_ids(self) -> tuple[str, ...]: ...
    @property
    def hits(self) -> Mapping[int, bool]: ...
    @property
    def answered(self) -> bool: ...


class RetrieverIdentity(Protocol):
    @property
    def identifier(self) -> str: ...


class StoredRun(Protocol):
    @property
    def retriever(self) -> RetrieverIdentity: ...
    @property
    def questions(self) -> Sequence[StoredOutcome]: ...


@dataclass(frozen=True, slots=True)
class _Seen:
    retriever: str
    ranking: tuple[str, ...]
    hits: Mapping[int, bool]


def run_findings(
    questions: Sequence[GoldenQuestion],
    runs: Sequence[StoredRun],
    min_retrievers: int = DEFAULT_MIN_RETRIEVERS,
) -> list[Finding]:
    labels = {q.id: frozenset(q.expected_document_ids) for q in questions}
    seen: dict[str, list[_Seen]] = defaultdict(list)
    for run in runs:
        for o in run.questions:
            label = labels.get(o.question_id)
            if o.answered and label is not None and frozenset(o.expected_document_ids) == label:
                seen[o.question_id].append(
                    _Seen(run.retriever.identifier, o.ranked_document_ids, o.hits)
                )
    findings = []
    for q in questions:
        outcomes = seen.get(q.id, [])
        retrievers = sorted({s.retriever for s in outcomes})
        if len(retrievers) < max(min_retrievers, 1):
            continue
        finding = _suspect(q, outcomes, retrievers) or _no_signal(q, outcomes, retrievers)
        if finding is not None:
            findings.append(finding)
    return findings


def _suspect(q: GoldenQuestion, seen: list[_Seen], retrievers: list[str]) -> Finding | None:
    if not q.expected_document_ids:
        return None
    expected = set(q.expected_document_ids)
    if any(expected.intersection(s.ranking) for s in seen):
        return None
    firsts = {s.ranking[0] if s.ranking else None for s in seen}
    if len(firsts) != 1 or None in firsts:
        return None
    (top,) = firsts
    message = (
        f"no expected document came back in {len(seen)} runs of {len(retrievers)} "
        f"retrievers (deepest ranking {max(len(s.ranking) for s in seen)}), and all put "
        f"{top!r} first: check whether it answers the question"
    )
    return Finding(
        FindingKind.SUSPECT_LABEL,
        (q.id,),
        message,
        {"runs": len(seen), "retrievers": retrievers, "document_id": top},
    )


def _no_signal(q: GoldenQuestion, seen: list[_Seen], retrievers: list[str]) -> Finding | None:
    values = {hit for s in seen for hit in s.hits.values()}
    if len(values) != 1:
        return None
    always = "hit" if values == {True} else "missed"
    message = (
        f"every run {always} it at every cutoff ({len(seen)} runs of "
        f"{len(retrievers)} retrievers): it does not tell them apart"
    )
    return Finding(
        FindingKind.NO_SIGNAL,
        (q.id,),
        message,
        {"runs": len(seen), "retrievers": retrievers, "always": always},
    )
