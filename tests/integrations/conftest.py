"""The retrievers a CI job gates: a fixed-answer retriever served over real gRPC on
127.0.0.1, every replica with one Describe identifier (one lineage, whatever its port)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import pytest
from support.cli import TableRetriever


@pytest.fixture
def serve_table() -> Iterator[Callable[..., str]]:
    """Start a TableRetriever server; returns its ``grpc://127.0.0.1:PORT``."""
    from retrieval_eval import serve

    handles = []

    def start(answers: Mapping[str, list[str]]) -> str:
        handle = serve(TableRetriever(answers, identifier="search"))  # type: ignore[arg-type]
        handles.append(handle)
        return f"grpc://{handle.address}"

    yield start
    for handle in handles:
        handle.stop(grace=None)
