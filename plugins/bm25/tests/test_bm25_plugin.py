"""The plugin through its real installed entry points: in-process, the CLI, and served
over gRPC by ``reval bm25 serve`` in a subprocess."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from reval_bm25.retriever import Bm25Retriever, open_index

from retrieval_eval.cli.main import main
from retrieval_eval.errors import InputError, PluginError
from retrieval_eval.plugins import COMMANDS, RETRIEVERS, list_plugins, load_plugin
from retrieval_eval.retrievers.opening import open_retriever
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

from .corpora import DOCS


def test_entry_points_are_installed() -> None:
    retrievers = {p.name: p for p in list_plugins(RETRIEVERS)}
    assert retrievers["bm25"].target == "reval_bm25.plugin:create"
    assert retrievers["bm25"].distribution == "reval-ir-bm25"
    commands = {p.name: p.target for p in list_plugins(COMMANDS)}
    assert commands["bm25"] == "reval_bm25.cli:bm25"


def test_factory_from_the_entry_point_opens_the_index(index_dir: Path) -> None:
    factory = load_plugin(RETRIEVERS, "bm25", kind="retriever")
    retriever = factory(str(index_dir))
    assert isinstance(retriever, Bm25Retriever)
    assert retriever.retrieve("thiamine", 1)[0].document_id == "beriberi"
    with pytest.raises(InputError, match="needs an index directory"):
        factory(None)


async def test_in_process_spec_answers_like_a_remote_retriever(index_dir: Path) -> None:
    retriever = open_retriever(f"bm25:{index_dir}")
    try:
        description = await retriever.describe()
        assert description.identifier == "bm25"
        items = await retriever.retrieve('niacin: "pellagra" (lack)', 3)
        assert items[0].document_id == "pellagra"
    finally:
        await retriever.close()


def test_in_process_spec_with_a_missing_index_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="index not found") as caught:
        open_retriever(f"bm25:{tmp_path / 'missing'}")
    assert not isinstance(caught.value, PluginError)


def _reval(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def test_cli_index_then_update(tmp_path: Path, corpus: Path, capsys) -> None:
    out = tmp_path / "index"
    assert _reval("bm25", "index", str(corpus), "--out", str(out), "--chunk-words", "3") == 0
    printed = capsys.readouterr().out
    assert f"indexed {len(DOCS)} documents in " in printed and "(words=3,overlap=0)" in printed
    corpus.write_text(corpus.read_text().splitlines()[0] + "\n", "utf-8")
    assert _reval("bm25", "index", str(corpus), "--out", str(out), "--update") == 0
    printed = capsys.readouterr().out
    assert f"0 added, 0 replaced, {len(DOCS) - 1} deleted, 1 unchanged" in printed
    assert open_index(out).describe().chunk_separator == "#"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/nope.jsonl", "--out", "{tmp}/i"], "corpus not found"),
        (["{corpus}", "--out", "{tmp}/i", "--chunk-words", "5", "--chunk-overlap", "5"],
         "--chunk-overlap must be between 0"),
        (["{corpus}", "--out", "{tmp}/i", "--chunk-overlap", "2"], "needs --chunk-words"),
        (["{corpus}", "--out", "{tmp}/absent", "--update"], "index not found"),
    ],
)  # fmt: skip
def test_cli_bad_input_exits_2(tmp_path: Path, corpus: Path, capsys, args, message) -> None:
    argv = [a.format(tmp=tmp_path, corpus=corpus) for a in args]
    assert _reval("bm25", "index", *argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_serve_answers_over_grpc_and_stops_on_ctrl_c(index_dir: Path) -> None:
    """``reval bm25 serve`` in its own process: health, Retrieve, Describe, token, SIGINT."""
    env = {**os.environ, "BM25_TEST_TOKEN": "s3cret"}
    command = [sys.executable, "-c", "from retrieval_eval.cli.main import main; main()"]
    args = ["bm25", "serve", str(index_dir), "--address", "127.0.0.1:0"]
    process = subprocess.Popen(
        [*command, *args, "--token-env", "BM25_TEST_TOKEN"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line = process.stdout.readline() if process.stdout else ""
        found = re.search(r" on (127\.0\.0\.1:\d+);", line)
        assert found, line + (process.stderr.read() if process.stderr else "")
        with grpc.insecure_channel(found.group(1)) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=5
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            stub = pb_grpc.RetrieverStub(channel)
            with pytest.raises(grpc.RpcError) as denied:
                stub.Retrieve(pb.RetrieveRequest(question="thiamine", limit=3), timeout=5)
            assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
            auth = (("authorization", "Bearer s3cret"),)
            request = pb.RetrieveRequest(question='iodine: "thyroid" (-goitre)', limit=3)
            reply = stub.Retrieve(request, timeout=5, metadata=auth)
            assert reply.results[0].document_id == "goitre"
            described = stub.Describe(pb.DescribeRequest(), timeout=5, metadata=auth)
            assert described.identifier == "bm25"
            assert described.metadata["analyzer"].endswith("stemmer=english")
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
        assert process.stderr is not None and "stopped" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_serve_without_the_token_variable_is_a_usage_error(index_dir: Path, capsys) -> None:
    os.environ.pop("BM25_UNSET_VAR", None)
    code = _reval("bm25", "serve", str(index_dir), "--token-env", "BM25_UNSET_VAR")
    assert code == 2
    assert "BM25_UNSET_VAR" in capsys.readouterr().err


def test_serve_a_missing_index_is_bad_input(tmp_path: Path, capsys) -> None:
    assert _reval("bm25", "serve", str(tmp_path / "absent")) == 2
    assert f"index not found: {tmp_path / 'absent'}" in capsys.readouterr().err


def test_serve_on_a_busy_port_is_an_infrastructure_failure(index_dir: Path, capsys) -> None:
    with serve_in_thread(index_dir) as address:
        assert _reval("bm25", "serve", str(index_dir), "--address", address) == 3
    assert f"cannot listen on {address}" in capsys.readouterr().err


@contextmanager
def serve_in_thread(index_dir: Path) -> Iterator[str]:
    from retrieval_eval import serve

    retriever = open_index(index_dir)
    with serve(retriever, "127.0.0.1:0") as handle:
        yield handle.address
    retriever.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-client-ca", "ca.pem"], "--tls-client-ca needs --tls-cert and --tls-key"),
    ],
)
def test_serve_tls_options_are_checked(index_dir: Path, capsys, args, message) -> None:
    assert _reval("bm25", "serve", str(index_dir), *args) == 2
    assert message in capsys.readouterr().err
