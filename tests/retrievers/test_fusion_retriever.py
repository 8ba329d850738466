"""Fused retrievers end to end: real gRPC members on loopback and the in-process BM25
plugin, opened from reval.toml and evaluated by the coordinator."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.retrievers import TinyRetriever

from retrieval_eval.errors import RetrieverInternal
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.documents import distinct_scored
from retrieval_eval.retrievers.fusion.methods import FusionParams, fuse
from retrieval_eval.retrievers.fusion.retriever import FusedRetriever
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import ServerHandle

Serve = Callable[..., ServerHandle]


class Chunked:
    """Answers with chunk ids ``doc#n`` (two chunks per document) and declares ``#``."""

    def __init__(self, ranking: list[str], identifier: str = "chunked") -> None:
        self.ranking, self.identifier = ranking, identifier

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        ids = [f"{d}#{n}" for d in self.ranking for n in (0, 1)]
        return [RetrievedItem(i, 10.0 - r) for r, i in enumerate(ids[:limit])]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription(self.identifier, "7", chunk_separator="#")


class Failing:
    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        raise RuntimeError("shard offline")

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("failing", "0")


class Rendezvous:
    """Answers only once the other member has been called too: a fusion that called its
    members one after the other would time out here (a barrier, not a stopwatch)."""

    def __init__(self, barrier: threading.Barrier, docs: list[str], name: str) -> None:
        self.barrier, self.docs, self.name = barrier, docs, name

    def retrieve(self, question: str, limit: int) -> list[str]:
        self.barrier.wait()
        return self.docs[:limit]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription(self.name)


def toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "reval.toml"
    path.write_text(text, encoding="utf-8")
    return path


def served(serve: Serve, obj: Any) -> str:
    return f"grpc://{serve(obj).address}"


async def test_fuses_grpc_members_with_their_own_separators(
    tmp_path: Path, serve_retriever: Serve
) -> None:
    chunked = Chunked(["cats", "tea", "dogs"])
    tiny = TinyRetriever()
    path = toml(
        tmp_path,
        f'[retrievers.chunks]\naddress = "{served(serve_retriever, chunked)}"\n'
        f'[retrievers.tiny]\naddress = "{served(serve_retriever, tiny)}"\n'
        '[retrievers.hybrid]\nfuse = ["chunks", "tiny"]\nk = 10\n',
    )
    question = "do cats drink green tea"
    fused = open_retriever("hybrid", config_path=path)
    assert isinstance(fused, FusedRetriever)
    async with fused:
        got = await fused.retrieve(question, 4)
        description = await fused.describe()
    # Independent: each member's own answer, collapsed with its own separator, fused.
    rankings = [
        distinct_scored(chunked.retrieve(question, 4), "#"),  # cats, tea (4 chunks)
        distinct_scored(tiny.retrieve(question, 4), ""),  # tea (green, tea), cats (cats)
    ]
    expected = fuse(rankings, FusionParams(k=10), 4)
    assert [(i.document_id, i.score) for i in got] == [(f.document_id, f.score) for f in expected]
    # cats: 1/11 + 1/12 ties tea: 1/12 + 1/11; both best rank 1; cats has it in member 0.
    assert [i.document_id for i in got][:2] == ["cats", "tea"]
    assert description.identifier == "rrf(chunks, tiny)"
    assert description.version == "rrf k=10; chunked@7 tiny@1"
    assert description.chunk_separator == ""
    assert description.corpus_revision == "tiny-6"
    assert description.metadata["fusion.member.0"].startswith("chunks: chunked 7 (chunks (grpc://")
    assert description.metadata["fusion.member.0.chunk_separator"] == "#"


async def test_members_are_called_concurrently(tmp_path: Path, serve_retriever: Serve) -> None:
    barrier = threading.Barrier(2, timeout=5)
    a = served(serve_retriever, Rendezvous(barrier, ["x", "y"], "a"))
    b = served(serve_retriever, Rendezvous(barrier, ["y", "z"], "b"))
    path = toml(tmp_path, f'[retrievers.h]\nfuse = ["{a}", "{b}"]\n')
    async with open_retriever("h", config_path=path) as fused:  # type: ignore[attr-defined]
        got = await fused.retrieve("anything", 3)
    assert [i.document_id for i in got] == ["y", "x", "z"]


async def test_a_failed_member_is_an_error_naming_it(
    tmp_path: Path, serve_retriever: Serve
) -> None:
    bad = served(serve_retriever, Failing())
    good = served(serve_retriever, TinyRetriever())
    path = toml(tmp_path, f'[retrievers.h]\nfuse = ["{good}", "{bad}"]\n')
    async with open_retriever("h", config_path=path) as fused:  # type: ignore[attr-defined]
        with pytest.raises(RetrieverInternal) as caught:
            await fused.retrieve("cats", 3)
    assert caught.value.target == "h"
    assert caught.value.details.startswith(f"member {bad}: ")
    assert "shard offline" in caught.value.details


def question_set() -> GoldenQuestionSet:
    questions = (
        GoldenQuestion("q1", "why do cats purr", Form.MATCH, ("cats",)),
        GoldenQuestion("q2", "how is espresso coffee brewed", Form.GAP, ("coffee",)),
    )
    return GoldenQuestionSet("mini", questions, "two questions")


def test_skip_mode_fuses_the_rest_and_notes_the_skip_per_question(
    tmp_path: Path, serve_retriever: Serve
) -> None:
    bad = served(serve_retriever, Failing())
    good = served(serve_retriever, TinyRetriever())
    path = toml(
        tmp_path,
        f'[retrievers.strict]\nfuse = ["{good}", "{bad}"]\n'
        f'[retrievers.lenient]\nfuse = ["{good}", "{bad}"]\non_member_error = "skip"\n',
    )
    strict, lenient = evaluate([question_set()], ["strict", "lenient"], config_path=path)
    assert strict.error_count == 2 and not strict.complete
    assert {q.error.kind for q in strict.questions if q.error} == {"internal"}
    assert lenient.complete and lenient.metrics.values["top1_hit_rate"] == 1.0
    for q in lenient.questions:
        assert len(q.notes) == 1
        assert q.notes[0].startswith(f"skipped member {bad}: internal: ")
    assert lenient.retriever.metadata["fusion.on_member_error"] == "skip"


def test_every_member_failing_is_an_error_even_when_skipping(
    tmp_path: Path, serve_retriever: Serve
) -> None:
    a, b = served(serve_retriever, Failing()), served(serve_retriever, Failing())
    path = toml(tmp_path, f'[retrievers.h]\nfuse = ["{a}", "{b}"]\non_member_error = "skip"\n')
    (run,) = evaluate([question_set()], ["h"], config_path=path)
    assert run.error_count == 2
    assert all(q.error and "every member failed" in q.error.message for q in run.questions)


def test_bm25_plugin_and_grpc_member_evaluate_like_any_retriever(
    tmp_path: Path, serve_retriever: Serve
) -> None:
    from reval_bm25.index import build_index

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            f'{{"_id": "{d}", "title": "{d}", "text": "{t}"}}\n'
            for d, t in TinyRetriever().docs.items()
        )
    )
    build_index(corpus, tmp_path / "index", chunk_words=4)
    tiny = served(serve_retriever, TinyRetriever())
    path = toml(
        tmp_path,
        f'[retrievers.hybrid]\nfuse = ["bm25:{tmp_path / "index"}", "{tiny}"]\n'
        'method = "combsum"\nweights = [1, 0.5]\n',
    )
    (fused, member) = evaluate(
        [question_set()], ["hybrid", f"bm25:{tmp_path / 'index'}"], EvalOptions(), config_path=path
    )
    assert fused.complete and member.complete
    assert fused.retriever.identifier == f"combsum(bm25:{tmp_path / 'index'}, {tiny})"
    assert fused.retriever.version == "combsum weights=1,0.5; bm25@" + (
        f"{member.retriever.version} tiny@1"
    )
    assert fused.parameters.doc_id_separator == ""
    assert member.parameters.doc_id_separator == "#"
    assert fused.metrics.values["top1_hit_rate"] == 1.0
    assert all(q.latency_ms is not None and q.latency_ms > 0 for q in fused.questions)
    assert all(set(q.ranked_document_ids) <= set(TinyRetriever().docs) for q in fused.questions)


def test_closing_a_fusion_closes_its_members(tmp_path: Path) -> None:
    closed: list[str] = []

    class Member:
        def __init__(self, name: str) -> None:
            self.name = name

        async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
            return []

        async def describe(self) -> RetrieverDescription:
            return RetrieverDescription(self.name)

        async def close(self) -> None:
            closed.append(self.name)

    from retrieval_eval.retrievers.fusion.retriever import Member as M

    fused = FusedRetriever("h", [M("a", Member("a")), M("b", Member("b"))])  # type: ignore[arg-type]
    assert len(asyncio.run(fused.retrieve("q", 3))) == 0
    asyncio.run(fused.close())
    assert closed == ["a", "b"]


def test_history_keeps_a_fusion_apart_from_its_members_and_its_parameters(
    tmp_path: Path, serve_retriever: Serve
) -> None:
    from retrieval_eval.regression.fingerprint import benchmark_fingerprint, variant_fingerprint

    a, b = served(serve_retriever, TinyRetriever()), served(serve_retriever, Chunked(["cats"]))
    path = toml(
        tmp_path,
        f'[retrievers.k60]\nfuse = ["{a}", "{b}"]\n'
        f'[retrievers.k10]\nfuse = ["{a}", "{b}"]\nk = 10\n'
        f'[retrievers.mnz]\nfuse = ["{a}", "{b}"]\nmethod = "combmnz"\n',
    )
    k60, k10, mnz, member = evaluate([question_set()], ["k60", "k10", "mnz", a], config_path=path)
    identifiers = {r.retriever.identifier for r in (k60, k10, mnz, member)}
    assert identifiers == {f"rrf({a}, {b})", f"combmnz({a}, {b})", "tiny"}
    # Same fusion, other parameters: the same history, a different variant.
    assert k60.retriever.identifier == k10.retriever.identifier
    assert variant_fingerprint(k60) != variant_fingerprint(k10)
    assert benchmark_fingerprint(k60) == benchmark_fingerprint(k10)
    assert k10.retriever.metadata["fusion.parameters"] == "rrf k=10"
