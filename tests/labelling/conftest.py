"""The example corpus indexed twice by the BM25 plugin (whole pages; 30-word chunks), a
scripted retriever served over real gRPC, and a question file to draft from."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from support.labelling import CORPUS, QUESTIONS, Scripted


@pytest.fixture(scope="session")
def bm25_specs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """``bm25:`` specs of the example corpus: whole pages, and chunks of 30 words."""
    from reval_bm25.index import build_index

    root = tmp_path_factory.mktemp("bm25")
    build_index(CORPUS, root / "pages")
    build_index(CORPUS, root / "chunks", chunk_words=30)
    return f"bm25:{root / 'pages'}", f"bm25:{root / 'chunks'}"


@pytest.fixture
def question_file(tmp_path: Path) -> Path:
    path = tmp_path / "questions.txt"
    path.write_text("# questions from the support inbox\n" + "\n".join(QUESTIONS) + "\n\n")
    return path


@pytest.fixture
def serve_scripted() -> Iterator[Callable[[Mapping[str, list[str]]], str]]:
    from retrieval_eval import serve

    handles = []

    def start(answers: Mapping[str, list[str]]) -> str:
        handle = serve(Scripted(answers))
        handles.append(handle)
        return f"grpc://{handle.address}"

    yield start
    for handle in handles:
        handle.stop(grace=None)
