"""From result ids to documents: the chunk-id mapping and duplicate collapse.

This is step 2 and 3 of the scoring protocol (``retrieval_eval.scoring.protocol``), kept
here, below scoring, so that a fused retriever collapses its members' results with the
very same code that scores them:

- an id maps to its document by cutting at the LAST separator (``"doc#1#7"`` with ``"#"``
  -> ``"doc#1"``); an id whose document part would be empty is kept whole;
- duplicate documents collapse to their first occurrence (empty ids break the contract
  and never get this far; they are skipped all the same).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from retrieval_eval.retrievers.protocol import Ranking, RetrievedItem


def document_id(result_id: str, separator: str) -> str:
    """The document a result id belongs to: cut at the last separator, if any."""
    if separator:
        return result_id.rpartition(separator)[0] or result_id
    return result_id


def distinct_documents(result_ids: Iterable[str], separator: str) -> tuple[str, ...]:
    """Distinct document ids in rank order, first occurrence kept (empty ids, which break
    the contract, never get this far in scoring; they are skipped here all the same)."""
    return tuple(distinct_members([r for r in result_ids if r], separator))


def distinct_members(result_ids: Iterable[str], separator: str) -> dict[str, None]:
    """The distinct documents of non-empty ``result_ids`` as the keys of a dict, in rank
    order: ``distinct_documents`` with constant-time membership, for scoring."""
    # rpartition gives an empty head both when the separator is absent and when the
    # document part is empty; either way the id is kept whole (see ``document_id``).
    if separator:
        return dict.fromkeys([r.rpartition(separator)[0] or r for r in result_ids])
    return dict.fromkeys(result_ids)


def distinct_scored(
    items: Ranking | Sequence[RetrievedItem], separator: str
) -> list[tuple[str, float | None]]:
    """``distinct_documents`` of ``items`` with each document's score: the score of the
    result at its first occurrence (the one the collapse keeps)."""
    ranking = items if isinstance(items, Ranking) else Ranking.of(items)
    ids = ranking.document_ids
    scores: dict[str, float | None] = {}
    for result_id, score in zip(ids, ranking.scores or (None,) * len(ids), strict=True):
        scores.setdefault(document_id(result_id, separator), score)
    return [(doc, scores[doc]) for doc in distinct_documents(ids, separator)]
