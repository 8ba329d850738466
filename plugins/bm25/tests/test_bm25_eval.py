"""reval's engine over the plugin: in-process and served over gRPC give the same run,
and ``reval eval --retriever bm25:DIR`` works end to end with chunk ids collapsed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from reval_bm25.index import build_index
from reval_bm25.retriever import open_index
from support.env import REPO_ROOT

from retrieval_eval import serve
from retrieval_eval.cli.main import main
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.opening import open_retriever

EXAMPLES = REPO_ROOT / "src" / "retrieval_eval" / "example_data"


@pytest.fixture(scope="module")
def chunked_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("example") / "index"
    build_index(EXAMPLES / "corpus.jsonl", out, chunk_words=40, chunk_overlap=10)
    return out


async def _evaluate(spec: str):
    retriever = open_retriever(spec)
    try:
        qs = load_question_set(EXAMPLES / "questions.yaml")
        return await evaluate_set(qs, retriever, EvalOptions(ks=(1, 3, 5)))
    finally:
        await retriever.close()


async def test_served_and_in_process_runs_are_identical(chunked_index: Path) -> None:
    local = await _evaluate(f"bm25:{chunked_index}")
    retriever = open_index(chunked_index)
    try:
        with serve(retriever, "127.0.0.1:0") as handle:
            remote = await _evaluate(f"grpc://{handle.address}")
    finally:
        retriever.close()
    assert local.complete and remote.complete
    assert remote.retriever == local.retriever  # Describe survives the wire intact
    assert local.retriever.chunk_separator == "#"
    assert local.parameters.doc_id_separator == "#"
    assert [q.raw_ids for q in remote.questions] == [q.raw_ids for q in local.questions]
    assert remote.metrics.values == local.metrics.values
    chunked = [q for q in local.questions if any("#" in r for r in q.raw_ids)]
    assert chunked, "chunk ids are returned"
    for outcome in local.questions:
        ranked = outcome.ranked_document_ids
        assert len(ranked) == len(set(ranked)) and not any("#" in d for d in ranked)


def test_reval_eval_in_process_through_the_cli(chunked_index: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    argv = ["eval", "--set", str(EXAMPLES / "questions.yaml"), "--retriever"]
    argv += [f"bm25:{chunked_index}", "--format", "json", "--output", str(report), "--no-save"]
    try:
        main(argv)
    except SystemExit as e:  # success returns; any exit code here is a failure
        pytest.fail(f"reval eval exited with {e.code}")
    text = report.read_text("utf-8")
    assert json.loads(text)
    assert '"bm25"' in text and "words=40,overlap=10" in text
    assert "tantivy-0.27" in text


def test_chunking_against_no_chunking_is_a_comparison_not_incomparable(
    chunked_index: Path, tmp_path: Path
) -> None:
    """ "Does chunking help?" is the question: the index rebuilt with chunking at the same
    target continues its lineage, and both runs score the same documents."""
    target = tmp_path / "index"
    build_index(EXAMPLES / "corpus.jsonl", target)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    verdicts = []
    for rebuild in (False, True):
        if rebuild:
            shutil.rmtree(target)
            shutil.copytree(chunked_index, target)
        report = tmp_path / f"run-{int(rebuild)}.json"
        argv = ["eval", "--set", str(EXAMPLES / "questions.yaml"), "--retriever"]
        argv += [f"bm25:{target}", "--format", "json", "--output", str(report), "--db", db]
        main(argv)
        (run,) = json.loads(report.read_text("utf-8"))["runs"]
        verdicts.append(run["regression"])
    assert verdicts[0]["verdict"] == "no-baseline"
    assert verdicts[1]["verdict"] in {"pass", "regression"}, verdicts[1]
    assert verdicts[1]["incomparable_parts"] == []
    assert "chunking" in (verdicts[1]["variant_change"] or ""), verdicts[1]
