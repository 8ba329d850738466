"""What the scoring's property tests share: hypothesis settings, the strategy of ranked
ids with chunk ids, and the plain definitions the fast paths are compared with."""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from retrieval_eval.retrievers.contract.limits import chunk_breach, count_breach, id_breach

#: ``REVAL_FUZZ_EXAMPLES`` raises the number of cases; up to 200 they are the same each run.
EXAMPLES = int(os.environ.get("REVAL_FUZZ_EXAMPLES", "100"))
CASES = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=EXAMPLES <= 200,  # CI: the same examples every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def documents_or_chunks(docs: Sequence[str]) -> st.SearchStrategy[str]:
    """A document id of ``docs``, or one of its chunk ids (``doc#0`` to ``doc#2``)."""
    return st.sampled_from(docs) | st.builds(
        lambda doc, n: f"{doc}#{n}", st.sampled_from(docs), st.integers(0, 2)
    )


def plain_documents(raw: Sequence[str], separator: str) -> tuple[str, ...]:
    """The distinct documents of a ranking, in rank order: a result's document is what
    comes before its last separator (the whole id when that would be empty)."""
    documents: list[str] = []
    for result in raw:
        doc = result
        if separator and separator in result:
            doc = result[: result.rindex(separator)] or result
        if doc not in documents:
            documents.append(doc)
    return tuple(documents)


def plain_breach(ids: Sequence[str], chunks: Sequence[str | None], limit: int) -> str | None:
    """The contract's first breach, results judged one by one (a result's id before its
    chunk); ``chunks`` empty when the response has no chunk ids."""
    breach = count_breach(len(ids), limit)
    if breach is None:
        for rank, doc in enumerate(ids, start=1):
            chunk = chunks[rank - 1] if chunks else None
            breach = id_breach(rank, doc) or chunk_breach(rank, chunk)
            if breach is not None:
                break
    return breach
