"""The OpenAI-compatible embeddings client against a real local HTTP server that serves
real WordLlama embeddings (``support.model_server``), and how it fails: no key, endpoint
down, a 429 storm, wrong dimensions -> one-line errors; while answering questions ->
question errors, never misses."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest
from reval_dense.embedders.openai import EndpointSettings, OpenAIEmbedder, create
from reval_dense.embedders.wordllama import WordLlamaEmbedder
from reval_dense.index import build_index
from reval_dense.retriever import open_index
from support.model_server import model_server

from retrieval_eval import EvalOptions, evaluate, load_question_set
from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.embedding import EmbeddingError

TEXTS = ["scurvy and vitamin C", "reset a forgotten password", "rotate the encryption key"]


def _settings(url: str, **changes: object) -> EndpointSettings:
    values: dict[str, object] = {"url": f"{url}/v1", "model": "wordllama-64", "dimensions": 64}
    values.update(changes)
    return EndpointSettings(**values)  # type: ignore[arg-type]


def test_endpoint_vectors_equal_the_model_and_come_in_batches() -> None:
    with model_server(dimensions=64) as server:
        embedder = OpenAIEmbedder(_settings(server.url, batch_size=2))
        vectors = embedder.embed(TEXTS)
    assert server.batch_sizes == [2, 1]
    direct = WordLlamaEmbedder(64).embed(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == (3, 64)
    assert vectors == pytest.approx(direct, abs=1e-6)
    assert embedder.identity.label() == "openai:wordllama-64 dims=64"


def test_an_index_built_through_the_endpoint_answers_like_the_local_model(
    tmp_path: Path, corpus: Path
) -> None:
    with model_server(dimensions=64) as server:
        options = {"url": f"{server.url}/v1", "model": "wl", "dimensions": 64}
        build_index(corpus, tmp_path / "remote", embedder="openai", embedder_options=options)
        remote = open_index(tmp_path / "remote")
        answer = remote.retrieve("how do I reset my password", 5)
        described = remote.describe()
    build_index(corpus, tmp_path / "local", embedder_options={"dimensions": 64})
    local = open_index(tmp_path / "local").retrieve("how do I reset my password", 5)
    assert answer.document_ids == local.document_ids
    assert described.model_revision == "openai:wl dims=64"
    assert described.metadata["embedder_url"] == f"{server.url}/v1"


def test_a_required_key_is_sent_and_a_missing_one_is_named(monkeypatch) -> None:
    with model_server(key="k-123") as server:
        with pytest.raises(EmbeddingError) as caught:
            OpenAIEmbedder(_settings(server.url)).embed(TEXTS)
        monkeypatch.setenv("EMBED_TEST_KEY", "k-123")
        keyed = OpenAIEmbedder(_settings(server.url, api_key_env="EMBED_TEST_KEY"))
        assert keyed.embed(TEXTS).shape == (3, 64)
    message = str(caught.value)
    assert message.startswith(f"embedding endpoint {server.url}/v1/embeddings: HTTP 401")
    assert "the endpoint wants a key" in message and "\n" not in message
    monkeypatch.delenv("EMBED_TEST_KEY")
    with pytest.raises(ConfigError, match="environment variable EMBED_TEST_KEY"):
        create({"url": server.url, "model": "m", "dimensions": 64, "api_key_env": "EMBED_TEST_KEY"})


class Waits(list[float]):
    """The waits between attempts, recorded instead of slept."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def test_endpoint_down_is_retried_with_bounded_backoff_then_one_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits = Waits()
    embedder = OpenAIEmbedder(_settings(f"http://127.0.0.1:{port}", retries=3), sleep=waits)
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(TEXTS)
    # Doubling from 0.25 s, each jittered down to no less than half.
    assert len(waits) == 3
    for wait, full in zip(waits, [0.25, 0.5, 1.0], strict=True):
        assert full / 2 <= wait <= full
    message = str(caught.value)
    assert "cannot connect" in message and "after 4 attempts" in message
    assert "\n" not in message


def test_a_429_storm_gives_up_after_the_retries_and_a_short_one_recovers() -> None:
    with model_server(always=429) as server:
        waits = Waits()
        with pytest.raises(EmbeddingError, match=r"HTTP 429 .* after 5 attempts"):
            OpenAIEmbedder(_settings(server.url), sleep=waits).embed(TEXTS)
        assert server.requests == 5 and waits == [0.0] * 4  # Retry-After: 0 honoured
        server.always, server.failures = None, [429, 503, 502]
        assert OpenAIEmbedder(_settings(server.url), sleep=waits).embed(TEXTS).shape[0] == 3
    with model_server(always=400) as server, pytest.raises(EmbeddingError, match="HTTP 400"):
        OpenAIEmbedder(_settings(server.url), sleep=waits).embed(TEXTS)
    assert server.requests == 1  # a client error is not retried


def test_wrong_dimensions_are_refused(tmp_path: Path, corpus: Path) -> None:
    with model_server(wrong_dimensions=32) as server:
        with pytest.raises(EmbeddingError, match="returned 32 dimensions, expected 64"):
            OpenAIEmbedder(_settings(server.url)).embed(TEXTS)
        options = {"url": f"{server.url}/v1", "model": "wl", "dimensions": 64}
        with pytest.raises(EmbeddingError, match="expected 64"):
            build_index(corpus, tmp_path / "i", embedder="openai", embedder_options=options)
    assert not (tmp_path / "i").exists()


def test_endpoint_failures_while_answering_are_question_errors_never_misses(
    tmp_path: Path, corpus: Path, questions: Path
) -> None:
    question_set = load_question_set(questions)
    with model_server(dimensions=64) as server:
        options = {"url": f"{server.url}/v1", "model": "wl", "dimensions": 64, "retries": 1}
        build_index(corpus, tmp_path / "i", embedder="openai", embedder_options=options)
        spec = f"dense:{tmp_path / 'i'}"
        (healthy,) = evaluate([question_set], [spec], EvalOptions())
        server.always = 503
        (failing,) = evaluate([question_set], [spec], EvalOptions())
    assert healthy.complete and healthy.error_count == 0
    assert failing.error_count == len(question_set) and not failing.complete
    for outcome in failing.questions:
        assert outcome.hits == {} and outcome.error is not None
        assert outcome.error.kind == "unavailable"
        assert "HTTP 503" in outcome.error.message and "after 2 attempts" in outcome.error.message
