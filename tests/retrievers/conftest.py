"""A tiny in-memory retriever served on 127.0.0.1:0, for any test that needs a real one.

Fixtures:
- ``tiny_retriever``: a ``TinyRetriever`` (word-overlap ranking over six documents).
- ``tiny_server``: that retriever served by ``retrieval_eval.serve``; yields the handle
  (``.address`` is "127.0.0.1:PORT").
- ``serve_retriever``: a factory ``serve_retriever(obj, address="127.0.0.1:0",
  **serve_kwargs) -> ServerHandle``
  that stops every server it started when the test ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from retrieval_eval.records import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import ServerHandle, serve

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


@pytest.fixture
def tiny_retriever() -> TinyRetriever:
    return TinyRetriever()


@pytest.fixture
def serve_retriever() -> Iterator[Callable[..., ServerHandle]]:
    handles: list[ServerHandle] = []

    def start(retriever: Any, address: str = "127.0.0.1:0", **kwargs: Any) -> ServerHandle:
        handle = serve(retriever, address, **kwargs)
        handles.append(handle)
        return handle

    yield start
    for handle in handles:
        handle.stop(grace=None)


@pytest.fixture
def tiny_server(
    serve_retriever: Callable[..., ServerHandle], tiny_retriever: TinyRetriever
) -> ServerHandle:
    return serve_retriever(tiny_retriever)
