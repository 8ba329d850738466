"""BEIR SciFact: the plugin reproduces the published BM25 figure, and reval's engine
scores its ranking exactly as an independent implementation (ir_measures) does."""

from __future__ import annotations

import csv
from pathlib import Path

import ir_measures
import pytest
from ir_measures import Success, nDCG
from reval_bm25.index import build_index
from reval_bm25.retriever import Bm25Retriever, open_index

from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.questions.beir import import_beir
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.retrievers.opening import open_retriever

pytestmark = pytest.mark.scifact

#: Pyserini BM25-flat on BEIR SciFact test (the published figure).
PUBLISHED_NDCG10 = 0.6789


@pytest.fixture(scope="module")
def scifact_index(scifact_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("scifact") / "index"
    info = build_index(scifact_dir / "corpus.jsonl.gz", out)
    assert (info.documents, info.segments) == (5183, 1)
    return out


def _qrels(scifact_dir: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with (scifact_dir / "qrels" / "test.tsv").open(newline="") as f:
        rows = csv.reader(f, delimiter="\t")
        next(rows)
        for query_id, doc_id, score in rows:
            qrels.setdefault(query_id, {})[doc_id] = int(score)
    return qrels


def _question_set(scifact_dir: Path) -> GoldenQuestionSet:
    return import_beir(scifact_dir, "test")


def _run(retriever: Bm25Retriever, questions: dict[str, str], depth: int):
    """The plugin's rankings as an ir_measures run; scores from rank, so ties cannot
    reorder documents between the two implementations."""
    return {
        qid: {item.document_id: float(depth - rank) for rank, item in enumerate(items)}
        for qid, text in questions.items()
        for items in [retriever.retrieve(text, depth)]
    }


def test_ndcg10_matches_the_published_bm25_figure(scifact_dir: Path, scifact_index: Path) -> None:
    qs = _question_set(scifact_dir)
    assert len(qs) == 300
    qrels = _qrels(scifact_dir)
    run = _run(open_index(scifact_index), {q.id: q.question for q in qs.questions}, 100)
    ndcg = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
    assert ndcg == pytest.approx(PUBLISHED_NDCG10, abs=0.01)


async def test_reval_hit_rates_equal_an_independent_implementation(
    scifact_dir: Path, scifact_index: Path
) -> None:
    qs = _question_set(scifact_dir)
    retriever = open_retriever(f"bm25:{scifact_index}")
    try:
        result = await evaluate_set(qs, retriever, EvalOptions(ks=(1, 3, 10)))
    finally:
        await retriever.close()
    assert result.complete and result.metrics.count == 300
    limit = result.parameters.limit
    run = _run(open_index(scifact_index), {q.id: q.question for q in qs.questions}, limit)
    for outcome in result.questions:  # reval scored exactly the plugin's ranking
        assert outcome.ranked_document_ids == tuple(run[outcome.question_id])
    qrels = {q.id: {d: 1 for d in q.expected_document_ids} for q in qs.questions}
    reference = ir_measures.calc_aggregate([Success @ 1, Success @ 3, nDCG @ 10], qrels, run)
    values = result.metrics.values
    assert values["top1_hit_rate"] == pytest.approx(reference[Success @ 1], abs=1e-9)
    assert values["top3_hit_rate"] == pytest.approx(reference[Success @ 3], abs=1e-9)
    assert values["binary_ndcg@10"] == pytest.approx(reference[nDCG @ 10], abs=1e-6)
    assert result.retriever.corpus_revision == open_index(scifact_index).describe().corpus_revision
