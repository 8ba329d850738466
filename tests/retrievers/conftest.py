"""A tiny in-memory retriever served on 127.0.0.1:0, for any test that needs a real one.

Fixtures:
- ``tiny_retriever``: a ``TinyRetriever`` (word-overlap ranking over six documents).
- ``tiny_server``: that retriever served by ``retrieval_eval.serve``; yields the handle
  (``.address`` is "127.0.0.1:PORT").
- ``serve_retriever``: a factory ``serve_retriever(obj, address="127.0.0.1:0",
  **serve_kwargs) -> ServerHandle``
  that stops every server it started when the test ends.
- ``broken_server``: a factory ``broken_server(Faults(...)) -> "grpc://127.0.0.1:PORT"``
  of raw servers breaking the contract as asked (``support.broken_retriever``), stopped
  when the test ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from support.broken_retriever import Faults, start_broken
from support.retrievers import TinyRetriever

from retrieval_eval.retrievers.server.sdk import ServerHandle, serve


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


@pytest.fixture
def broken_server() -> Iterator[Callable[[Faults], str]]:
    servers = []

    def start(faults: Faults) -> str:
        server, target = start_broken(faults)
        servers.append(server)
        return target

    yield start
    for server in servers:
        server.stop(None)
