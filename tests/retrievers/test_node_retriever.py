"""The Node.js example retriever (examples/node-retriever), started as a real process and
reached over a real channel: contract check, client round trip, an evaluation, a token,
and a clean stop on SIGTERM."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.env import REPO_ROOT, require
from support.processes import ServerProcess as NodeServer
from support.processes import start_server

from retrieval_eval.cli.main import cli
from retrieval_eval.errors import RetrieverRejected, RetrieverUnauthenticated
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient
from retrieval_eval.retrievers.contract.limits import MAX_LIMIT, MAX_QUESTION_BYTES, MIN_LIMIT

pytestmark = pytest.mark.node

NODE_DIR = REPO_ROOT / "examples" / "node-retriever"


def start_node(env: dict[str, str] | None = None) -> NodeServer:
    node = shutil.which("node")
    require(node is not None, "Node.js is not installed")
    require(
        (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir(),
        "the example's npm packages are missing: npm ci --prefix examples/node-retriever",
    )
    assert node is not None
    return start_server([node, "server.js", "0"], NODE_DIR, env)


@pytest.fixture(scope="module")
def node_server() -> Iterator[NodeServer]:
    server = start_node()
    yield server
    server.stop()


def test_check_retriever_passes_against_the_node_server(node_server: NodeServer) -> None:
    result = CliRunner().invoke(
        cli, ["check-retriever", node_server.address], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "PASS reflection: lists retrieval_eval.v1.Retriever" in result.output
    assert "PASS empty-question: INVALID_ARGUMENT: question must not be empty" in result.output
    assert result.output.splitlines()[-1] == "all 12 checks passed"


def test_check_retriever_as_a_real_command(node_server: NodeServer) -> None:
    reval = Path(sys.executable).with_name("reval")
    require(reval.exists(), f"console script not installed next to {sys.executable}")
    done = subprocess.run(
        [str(reval), "check-retriever", node_server.address, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"passed": true' in done.stdout


async def test_describe_and_retrieve_through_the_python_client(node_server: NodeServer) -> None:
    async with GrpcRetrieverClient(f"127.0.0.1:{node_server.port}") as client:
        description = await client.describe()
        assert description.identifier == "node-keyword-overlap"
        assert description.version == "0.1.0"
        assert len(description.corpus_revision) == 12
        assert description.metadata["language"] == "javascript"
        items = await client.retrieve("how does bm25 use inverse document frequency", 3)
        assert items[0].document_id == "doc-bm25"
        assert 1 <= len(items) <= 3
        scores = [item.score for item in items]
        assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)
        assert len(await client.retrieve("documents", 1)) == 1
        assert len(await client.retrieve("zebra xylophone", 5)) == 0
        with pytest.raises(RetrieverRejected, match="question must not be blank"):
            await client.retrieve("  ", 5)
        with pytest.raises(RetrieverRejected, match="limit must be between 1 and 1000"):
            await client.retrieve("documents", 1001)


def test_an_evaluation_through_the_node_server(node_server: NodeServer) -> None:
    questions = (
        GoldenQuestion("bm25", "how does BM25 rank with term frequency", Form.MATCH, ("doc-bm25",)),
        GoldenQuestion("grpc", "which framework runs over HTTP/2", Form.GAP, ("doc-grpc",)),
        GoldenQuestion(
            "deadline", "what bounds how long a client waits", Form.GAP, ("doc-deadline",)
        ),
        GoldenQuestion("pasta", "cooking pasta al dente", Form.GAP, ("doc-nodejs",)),
        GoldenQuestion("none", "zebra xylophone", Form.MATCH, ()),
    )
    golden = GoldenQuestionSet("node-example", questions)
    (run,) = evaluate([golden], [node_server.address], EvalOptions(ks=(1, 3)))
    assert run.complete and run.error_count == 0
    assert run.retriever.identifier == "node-keyword-overlap"
    outcomes = {o.question_id: o for o in run.questions}
    # Independent check of each hit: from the ranking the server returned.
    for question in questions:
        ranked = outcomes[question.id].ranked_document_ids
        expected = set(question.expected_document_ids)
        top1 = not ranked if not expected else bool(ranked) and ranked[0] in expected
        assert outcomes[question.id].hits[1] == top1, question.id
    assert [outcomes[q].hits[1] for q in ("bm25", "grpc", "deadline", "pasta", "none")] == [
        True,
        True,
        True,
        False,
        True,
    ]
    assert run.metrics.values["top1_hit_rate"] == pytest.approx(4 / 5)


@pytest.fixture(scope="module")
def node_with_token() -> Iterator[NodeServer]:
    server = start_node({"RETRIEVER_TOKEN": "node-s3cret"})
    yield server
    server.stop()


async def test_token_is_required_when_configured(node_with_token: NodeServer) -> None:
    target = f"127.0.0.1:{node_with_token.port}"
    async with GrpcRetrieverClient(target, ClientOptions(token="node-s3cret")) as client:
        assert (await client.describe()).identifier == "node-keyword-overlap"
    async with GrpcRetrieverClient(target, ClientOptions(token="wrong")) as client:
        with pytest.raises(RetrieverUnauthenticated, match="missing or wrong bearer token"):
            await client.retrieve("documents", 3)


def test_token_env_of_check_retriever(
    node_with_token: NodeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("H2_NODE_TOKEN", "node-s3cret")
    runner = CliRunner()
    address = node_with_token.address
    ok = runner.invoke(
        cli, ["check-retriever", address, "--token-env", "H2_NODE_TOKEN"], catch_exceptions=False
    )
    refused = runner.invoke(cli, ["check-retriever", address], catch_exceptions=False)
    assert ok.exit_code == 0, ok.output
    assert refused.exit_code == 3
    assert "FAIL describe: UNAUTHENTICATED: missing or wrong bearer token" in refused.output


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_cleanly(signum: signal.Signals) -> None:
    server = start_node()
    assert server.stop(signum) == 0
    assert server.lines[-1] == f"stopped ({signum.name})"


@pytest.mark.parametrize(
    ("question", "limit", "accepted"),
    [
        ("documents " * (MAX_QUESTION_BYTES // 10), MAX_LIMIT, True),
        ("é" * (MAX_QUESTION_BYTES // 2), MIN_LIMIT, True),
        ("é" * (MAX_QUESTION_BYTES // 2 + 1), 3, False),
        ("documents", MAX_LIMIT + 1, False),
        ("documents", MIN_LIMIT - 1, False),
    ],
)
async def test_the_node_server_enforces_the_limits_python_defines(
    node_server: NodeServer, question: str, limit: int, accepted: bool
) -> None:
    """The Node example keeps its own copy of the limits; this keeps it equal to ours.
    Refusals go through the raw stub: our client never sends an over-long question."""
    import grpc

    from retrieval_eval.v1 import retriever_pb2 as pb

    async with GrpcRetrieverClient(f"127.0.0.1:{node_server.port}") as client:
        if accepted:
            await client.retrieve(question, limit)
        else:
            request = pb.RetrieveRequest(question=question, limit=limit)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await client.stub.Retrieve(request, timeout=10)
            assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("question", "blank"),
    [("\u0085\u0085", True), ("\u3000 \t", True), ("\u00a0", True), ("\ufeff", False)],
    ids=["NEL", "ideographic", "NBSP", "BOM"],
)
async def test_the_node_server_applies_the_protos_blank_rule(
    node_server: NodeServer, question: str, blank: bool
) -> None:
    """Not JavaScript's trim(), which keeps U+0085 and strips U+FEFF: the proto's list."""
    async with GrpcRetrieverClient(f"127.0.0.1:{node_server.port}") as client:
        if blank:
            with pytest.raises(RetrieverRejected, match="question must not be blank"):
                await client.retrieve(question, 5)
        else:
            assert len(await client.retrieve(question, 5)) == 0
