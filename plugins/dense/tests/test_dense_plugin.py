"""The plugin through its real installed entry points: in-process, the CLI, and served
over gRPC by ``reval dense serve`` in its own process, checked by ``reval check-retriever``."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from reval_dense.retriever import DenseRetriever, open_index

from retrieval_eval import EvalOptions, evaluate, load_question_set
from retrieval_eval.cli.main import main
from retrieval_eval.errors import InputError, PluginError
from retrieval_eval.plugins import COMMANDS, EMBEDDERS, RETRIEVERS, list_plugins, load_plugin
from retrieval_eval.retrievers.embedding import load_embedder
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

REVAL = [sys.executable, "-c", "from retrieval_eval.cli.main import main; main()"]


def test_entry_points_are_installed() -> None:
    retrievers = {p.name: p for p in list_plugins(RETRIEVERS)}
    assert retrievers["dense"].target == "reval_dense.plugin:create"
    assert retrievers["dense"].distribution == "reval-ir-dense"
    assert {p.name: p.target for p in list_plugins(COMMANDS)}["dense"] == "reval_dense.cli:dense"
    embedders = {p.name: p.target for p in list_plugins(EMBEDDERS)}
    assert embedders["wordllama"] == "reval_dense.embedders.wordllama:create"
    assert embedders["openai"] == "reval_dense.embedders.openai:create"
    assert load_embedder("wordllama", {"dimensions": 128}).identity.dimensions == 128


def test_factory_from_the_entry_point_opens_the_index(index_dir: Path) -> None:
    factory = load_plugin(RETRIEVERS, "dense", kind="retriever")
    retriever = factory(str(index_dir))
    assert isinstance(retriever, DenseRetriever)
    with pytest.raises(InputError, match="needs an index directory"):
        factory(None)


async def test_in_process_spec_answers_like_a_remote_retriever(index_dir: Path) -> None:
    retriever = open_retriever(f"dense:{index_dir}")
    try:
        assert (await retriever.describe()).identifier == "dense"
        ranking = await retriever.retrieve("my disk encryption key", 5)
        assert len(ranking) == 5 and ranking.scores[0] >= ranking.scores[-1]
    finally:
        await retriever.close()


def test_in_process_spec_with_a_missing_index_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="index not found") as caught:
        open_retriever(f"dense:{tmp_path / 'missing'}")
    assert not isinstance(caught.value, PluginError)


def test_evaluates_the_example_set_in_process(index_dir: Path, questions: Path) -> None:
    (run,) = evaluate([load_question_set(questions)], [f"dense:{index_dir}"], EvalOptions())
    assert run.complete and run.error_count == 0
    # Chunk ids were collapsed to documents by the scoring protocol.
    assert any("#" in i for q in run.questions for i in q.raw_ids)
    assert all("#" not in d for q in run.questions for d in q.ranked_document_ids)
    assert run.retriever.model_revision.startswith("wordllama:l2_supercat_256@")


def _reval(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def test_cli_index(tmp_path: Path, corpus: Path, capsys) -> None:
    out = tmp_path / "index"
    argv = [str(corpus), "--out", str(out), "--chunk-words", "100", "--dimensions", "64"]
    assert _reval("dense", "index", *argv, "--hnsw") == 0
    printed = capsys.readouterr().out
    assert "indexed 45 documents in " in printed and "(words=100,overlap=0)" in printed
    assert "dims=64; hnsw(M=16" in printed
    assert open_index(out).manifest.hnsw is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/nope.jsonl", "--out", "{tmp}/i"], "corpus not found"),
        (["{corpus}", "--out", "{tmp}/i", "--chunk-words", "5", "--chunk-overlap", "5"],
         "--chunk-overlap must be between 0"),
        (["{corpus}", "--out", "{tmp}/i", "--chunk-overlap", "2"], "needs --chunk-words"),
        (["{corpus}", "--out", "{tmp}/i", "--dimensions", "300"], "from 64 to 256"),
        (["{corpus}", "--out", "{tmp}/i", "--embed-url", "http://127.0.0.1:9/v1"],
         "--embed-url needs --embed-model and --dimensions"),
        (["{corpus}", "--out", "{tmp}/i", "--embed-model", "m"], "need --embed-url"),
    ],
)  # fmt: skip
def test_cli_bad_input_exits_2(tmp_path: Path, corpus: Path, capsys, args, message) -> None:
    argv = [a.format(tmp=tmp_path, corpus=corpus) for a in args]
    assert _reval("dense", "index", *argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not (tmp_path / "i").exists()


def test_serve_passes_the_contract_check_and_stops_on_ctrl_c(index_dir: Path) -> None:
    """``reval dense serve`` in its own process: health, Describe, ``reval check-retriever``
    (another process) passes every check, then SIGINT stops it cleanly."""
    process = subprocess.Popen(
        [*REVAL, "dense", "serve", str(index_dir), "--address", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = process.stdout.readline() if process.stdout else ""
        found = re.search(r" on (127\.0\.0\.1:\d+);", line)
        assert found, line + (process.stderr.read() if process.stderr else "")
        address = found.group(1)
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=5
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            described = pb_grpc.RetrieverStub(channel).Describe(pb.DescribeRequest(), timeout=5)
            assert described.identifier == "dense"
            assert described.metadata["embedder"] == "wordllama"
        check = subprocess.run(
            [*REVAL, "check-retriever", f"grpc://{address}"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert check.returncode == 0, check.stdout + check.stderr
        assert check.stdout.splitlines()[-1].endswith("checks passed")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
        assert process.stderr is not None and "stopped" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_serve_a_missing_index_is_bad_input(tmp_path: Path, capsys) -> None:
    assert _reval("dense", "serve", str(tmp_path / "absent")) == 2
    assert f"index not found: {tmp_path / 'absent'}" in capsys.readouterr().err
