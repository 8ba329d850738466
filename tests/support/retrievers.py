"""A tiny in-memory retriever: word-overlap ranking over six documents."""

from __future__ import annotations

import re

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem

TINY_DOCS = {
    "cats": "cats sleep most of the day and purr when content",
    "dogs": "dogs bark at the mail carrier and love long walks",
    "tea": "green tea is brewed below boiling to avoid bitterness",
    "coffee": "espresso is coffee brewed by forcing hot water through fine grounds",
    "bm25": "bm25 ranks documents by term frequency and inverse document frequency",
    "grpc": "grpc carries protobuf messages over http2 with deadlines and status codes",
}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


class TinyRetriever:
    """Ranks ``docs`` by how many question words they share (ties by id); a sync
    ``retrieve`` that returns only documents sharing at least one word."""

    def __init__(self, docs: dict[str, str] | None = None, identifier: str = "tiny") -> None:
        self.docs = dict(TINY_DOCS if docs is None else docs)
        self.identifier = identifier
        self._index = {doc_id: _words(text) for doc_id, text in self.docs.items()}

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        words = _words(question)
        scored = [(len(words & terms), doc_id) for doc_id, terms in self._index.items()]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        return [RetrievedItem(doc_id, float(score)) for score, doc_id in ranked[:limit]]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription(self.identifier, version="1", corpus_revision="tiny-6")
