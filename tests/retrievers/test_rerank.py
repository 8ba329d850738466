"""Rerank stages from reval.toml, end to end: the BM25 plugin's candidates (chunked, so
they are collapsed to documents first) rescored by the dense plugin's WordLlama embedder
or by a real local ``/rerank`` server (TEI and Cohere shapes), evaluated by the
coordinator; errors of either part are question errors."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from support.env import require
from support.model_server import model_server

from retrieval_eval.corpus.reader import iter_documents
from retrieval_eval.errors import ConfigError, InputError
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.config import load_config
from retrieval_eval.retrievers.documents import distinct_documents
from retrieval_eval.retrievers.embedding import load_embedder
from retrieval_eval.retrievers.listing import list_retrievers
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.server.sdk import ServerHandle

Serve = Callable[..., ServerHandle]
QUESTIONS = ["how do I reset my password", "the backup failed with an error", "encryption"]


@pytest.fixture(scope="module")
def bm25_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require(importlib.util.find_spec("reval_bm25") is not None, "the BM25 plugin is not installed")
    require(
        importlib.util.find_spec("reval_dense") is not None, "the dense plugin is not installed"
    )
    from reval_bm25.index import build_index

    out = tmp_path_factory.mktemp("rerank") / "bm25"
    build_index(corpus_path(), out, chunk_words=60, chunk_overlap=10)
    return out


def toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _entry(candidate: str, **keys: object) -> str:
    lines = [f'rerank = "{candidate}"', f'corpus = "{corpus_path()}"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in keys.items()]
    return "\n".join(lines) + "\n"


def _bodies() -> dict[str, str]:
    return {d.id: d.body for d in iter_documents(corpus_path())}


async def _answers(spec: str, path: Path) -> tuple[list[tuple[str, ...]], RetrieverDescription]:
    retriever = open_retriever(spec, config_path=path)
    try:
        described = await retriever.describe()
        answers = [(await retriever.retrieve(q, 10)).document_ids for q in QUESTIONS]
    finally:
        await retriever.close()
    return answers, described


async def test_embedding_rerank_reorders_the_collapsed_candidates_by_cosine(
    tmp_path: Path, bm25_index: Path
) -> None:
    """Independent computation: BM25's top 20 results collapsed to documents in plain
    Python, their texts embedded and ranked by numpy cosine."""
    candidate = f"bm25:{bm25_index}"
    path = toml(tmp_path, "[retrievers.rr]\n" + _entry(candidate, depth=20, dimensions=64))
    answers, described = await _answers("rr", path)
    bm25 = open_retriever(candidate)
    model, bodies = load_embedder("wordllama", {"dimensions": 64}), _bodies()
    try:
        for question, answer in zip(QUESTIONS, answers, strict=True):
            raw = (await bm25.retrieve(question, 20)).document_ids
            assert any("#" in r for r in raw)  # chunked: the collapse matters
            docs = list(distinct_documents(raw, "#"))
            vectors = model.embed([bodies[d] for d in docs]).astype(np.float64)
            q = model.embed([question])[0].astype(np.float64)
            order = np.argsort(-(vectors @ q), kind="stable")
            assert list(answer) == [docs[i] for i in order][:10]
            assert set(answer) <= set(docs) and len(set(answer)) == len(answer)
    finally:
        await bm25.close()
    assert described.identifier == "rerank(bm25:" + str(bm25_index) + ")"
    assert described.metadata["rerank.depth"] == "20"
    assert described.metadata["rerank.scorer"].startswith("embedding wordllama:l2_supercat_256@")
    assert described.metadata["rerank.candidate"].startswith(f"{candidate}: bm25 ")
    assert described.pipeline.startswith("tantivy-") and "-> rerank depth=20 by embedding" in (
        described.pipeline
    )
    assert described.chunk_separator == ""  # answers are documents
    assert described.corpus_revision and described.model_revision.endswith("dims=64")


@pytest.mark.parametrize("api", ["tei", "cohere"])
async def test_http_rerank_endpoint_scores_like_the_model_it_serves(
    tmp_path: Path, bm25_index: Path, api: str
) -> None:
    candidate = f"bm25:{bm25_index}"
    with model_server(dimensions=64) as server:
        url = f"{server.url}/rerank" if api == "tei" else f"{server.url}/v1/rerank"
        path = toml(
            tmp_path,
            "[retrievers.by-http]\n" + _entry(candidate, depth=20, scorer="http", url=url, api=api)
            + "[retrievers.by-embedding]\n" + _entry(candidate, depth=20, dimensions=64),
        )  # fmt: skip
        http_answers, described = await _answers("by-http", path)
    embedding_answers, _ = await _answers("by-embedding", path)
    assert http_answers == embedding_answers
    assert described.metadata["rerank.scorer"] == f"http {api} {url}"


def test_scorer_and_candidate_failures_are_question_errors(
    tmp_path: Path, bm25_index: Path, serve_retriever: Serve
) -> None:
    question_set = load_question_set(questions_path())

    class Flaky:
        def retrieve(self, question: str, limit: int) -> list[str]:
            if "password" in question:
                raise RuntimeError("shard offline")
            return ["encryption", "not-in-the-corpus"] if "key" in question else ["encryption"]

        def describe(self) -> RetrieverDescription:
            return RetrieverDescription("flaky", "1")

    flaky = f"grpc://{serve_retriever(Flaky()).address}"
    with model_server(always=503) as server:
        path = toml(
            tmp_path,
            "[retrievers.down]\n"
            + _entry(f"bm25:{bm25_index}", scorer="http", url=f"{server.url}/rerank", retries=1)
            + "[retrievers.flaky]\n" + _entry(flaky, depth=5),
        )  # fmt: skip
        (down, flaky_run) = evaluate(
            [question_set], ["down", "flaky"], EvalOptions(), config_path=path
        )
    assert down.error_count == len(question_set) and not down.complete
    for outcome in down.questions:
        assert outcome.hits == {} and outcome.error is not None
        assert outcome.error.kind == "unavailable"
        assert "scorer: rerank endpoint" in outcome.error.message
        assert "HTTP 503" in outcome.error.message and "after 2 attempts" in outcome.error.message
    errors = {q.question_id: q.error for q in flaky_run.questions if q.error is not None}
    texts = {q.id: q.question for q in question_set.questions}
    failing = {i for i, t in texts.items() if "password" in t or "key" in t}
    assert set(errors) == failing and len(failing) == 4
    for question_id, error in errors.items():
        if "password" in texts[question_id]:
            assert "candidate " + flaky in error.message and "shard offline" in error.message
        else:
            assert "'not-in-the-corpus', which is not in the corpus" in error.message
    assert all(q.hits for q in flaky_run.questions if q.error is None)


def test_reval_toml_entries_are_checked(tmp_path: Path) -> None:
    cases = {
        'rerank = "x"\ncorpus = "c.jsonl"\nscorer = "magic"\n': "key 'scorer' must be one of",
        'rerank = "x"\ncorpus = "c.jsonl"\ndepht = 5\n': "did you mean 'depth'?",
        'rerank = "x"\ncorpus = "c.jsonl"\ndepth = 0\n': "key 'depth' must be an integer",
        'rerank = "x"\n': "missing key 'corpus'",
        'rerank = "r"\ncorpus = "c.jsonl"\n': "cannot rerank itself",
        'rerank = "x"\ncorpus = "c.jsonl"\nscorer = "http"\n': "key 'url' must be",
        'rerank = "x"\ncorpus = "c.jsonl"\nscorer = "http"\nurl = "http://h/rerank"\n'
        'api = "grpc"\n': "key 'api' must be one of",
    }
    for body, message in cases.items():
        path = toml(tmp_path, "[retrievers.r]\n" + body)
        with pytest.raises(ConfigError, match=message) as caught:
            load_config(path)
        assert str(caught.value).startswith(f"{path} [retrievers.r]: ")


def test_cycles_missing_corpora_and_listing(tmp_path: Path) -> None:
    path = toml(
        tmp_path,
        "[retrievers.a]\n" + _entry("b") + "[retrievers.b]\n" + _entry("a")
        + '[retrievers.c]\nrerank = "a"\ncorpus = "absent.jsonl"\n',
    )  # fmt: skip
    with pytest.raises(ConfigError, match="retrievers form a cycle: a -> b -> a"):
        open_retriever("a", config_path=path)
    with pytest.raises(ConfigError, match=r"key 'corpus': corpus not found: .*absent.jsonl"):
        open_retriever("c", config_path=path)
    kinds = {i.name: (i.kind, i.detail) for i in list_retrievers(path)}
    assert kinds["a"] == ("rerank", "depth 50 by embedding(wordllama) of b")
    with pytest.raises(InputError, match="is a rerank stage, not a server"):
        import asyncio

        from retrieval_eval.retrievers.contract.check import check_contract

        asyncio.run(check_contract("a", config_path=path))
