"""The Go example retriever (examples/go-retriever), built once per session with Debian's
Go toolchain and grpc-go packages (offline, by its build.sh), started as a real process:
contract check, an evaluation whose figures equal an in-process reference computation,
the blank rule, the limits, a token and a clean stop."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner
from support.env import REPO_ROOT, require
from support.processes import ServerProcess, start_server

from retrieval_eval.cli.main import cli
from retrieval_eval.errors import RetrieverRejected, RetrieverUnauthenticated
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient
from retrieval_eval.retrievers.contract.limits import (
    MAX_LIMIT,
    MAX_QUESTION_BYTES,
    MIN_LIMIT,
)
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.text import WHITE_SPACE
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

pytestmark = pytest.mark.go

GO_DIR = REPO_ROOT / "examples" / "go-retriever"
GOCODE = Path("/usr/share/gocode/src")
CORPUS = REPO_ROOT / "src" / "retrieval_eval" / "example_data" / "corpus.jsonl"
QUESTIONS = REPO_ROOT / "src" / "retrieval_eval" / "example_data" / "questions.yaml"
DEBIAN_PACKAGES = (
    "golang-go golang-google-grpc-dev golang-google-protobuf-dev "
    "golang-github-golang-protobuf-1-5-dev"
)


@pytest.fixture(scope="session")
def go_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example built once per session; Go's build cache makes later sessions quick."""
    require(
        shutil.which("go") is not None, f"Go is not installed (apt-get install {DEBIAN_PACKAGES})"
    )
    require(
        (GOCODE / "google.golang.org" / "grpc").is_dir(),
        f"grpc-go is not in {GOCODE} (apt-get install {DEBIAN_PACKAGES})",
    )
    require(
        not (
            GOCODE / "github.com" / "golang" / "protobuf" / "proto" / "table_unmarshal.go"
        ).exists(),
        "golang-github-golang-protobuf-1-3-dev is installed; grpc-go needs 1-5 "
        "(apt-get install golang-github-golang-protobuf-1-5-dev)",
    )
    out = tmp_path_factory.mktemp("go") / "go-retriever"
    done = subprocess.run(
        ["sh", str(GO_DIR / "build.sh"), str(out)], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"build.sh failed:\n{done.stdout}{done.stderr}"
    return out


def start_go(binary: Path, env: dict[str, str] | None = None) -> ServerProcess:
    return start_server([str(binary), "-corpus", str(CORPUS), "0"], GO_DIR, env)


@pytest.fixture(scope="module")
def go_server(go_binary: Path) -> Iterator[ServerProcess]:
    server = start_go(go_binary)
    yield server
    server.stop()


# --- an independent reference: the ranking the example documents, computed here ---------

STOPWORD_TEXT = (
    "a an and are as at be by can do does for from how i if in is it my of on or so that "
    "the their them this to what when whether which who why with you your"
)
STOPWORDS = set(STOPWORD_TEXT.split())


def terms(text: str) -> list[str]:
    """ASCII letters and digits, ASCII lower-cased, stop words out, first occurrences."""
    words = re.findall(rb"[a-z0-9]+", text.encode("utf-8").lower())
    return list(dict.fromkeys(w.decode() for w in words if w.decode() not in STOPWORDS))


class ReferenceRetriever:
    """The Go example's ranking, in Python: integer weights N // df, best first, ties by id."""

    def __init__(self, corpus: Path) -> None:
        rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
        self.docs = {r["_id"]: set(terms(f"{r['title']} {r['text']}")) for r in rows if r}
        df: dict[str, int] = {}
        for doc_terms in self.docs.values():
            for term in doc_terms:
                df[term] = df.get(term, 0) + 1
        self.weight = {term: len(self.docs) // n for term, n in df.items()}

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        wanted = terms(question)
        scored = [
            (sum(self.weight[t] for t in wanted if t in doc_terms), doc_id)
            for doc_id, doc_terms in self.docs.items()
        ]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        return [RetrievedItem(doc_id, float(score)) for score, doc_id in ranked[:limit]]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("python-reference", version="1")


# --- the tests ------------------------------------------------------------------------------


def test_check_retriever_passes_against_the_go_server(go_server: ServerProcess) -> None:
    result = CliRunner().invoke(
        cli,
        ["check-retriever", go_server.address, "--set", str(QUESTIONS)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "PASS reflection: lists retrieval_eval.v1.Retriever" in result.output
    assert "PASS empty-question: INVALID_ARGUMENT: question must not be empty; blank too" in (
        result.output
    )
    assert "cut at limit 1, 5" in result.output
    assert result.output.splitlines()[-1] == "all 12 checks passed"


def test_check_retriever_as_a_real_command(go_server: ServerProcess) -> None:
    reval = Path(sys.executable).with_name("reval")
    require(reval.exists(), f"console script not installed next to {sys.executable}")
    done = subprocess.run(
        [str(reval), "check-retriever", go_server.address, "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["passed"] is True


async def test_describe_through_the_python_client(go_server: ServerProcess) -> None:
    async with GrpcRetrieverClient(go_server.target) as client:
        description = await client.describe()
    assert (description.identifier, description.version) == ("go-keyword-overlap", "0.1.0")
    assert description.corpus_revision == hashlib.sha256(CORPUS.read_bytes()).hexdigest()[:12]
    assert description.metadata == {
        "language": "go",
        "documents": str(len(CORPUS.read_text().splitlines())),
    }


def test_an_evaluation_through_go_equals_the_reference_in_process(
    go_server: ServerProcess,
) -> None:
    """The example set through the Go server and through the Python reference: the same
    rankings question by question, so the same figures."""
    question_set = load_question_set(QUESTIONS)
    options = EvalOptions(ks=(1, 3, 5))
    (through_go,) = evaluate([question_set], [go_server.address], options)
    (reference,) = evaluate([question_set], [ReferenceRetriever(CORPUS)], options)
    assert through_go.complete and through_go.error_count == 0
    assert through_go.retriever.identifier == "go-keyword-overlap"
    go_ranked = {o.question_id: o.ranked_document_ids for o in through_go.questions}
    ref_ranked = {o.question_id: o.ranked_document_ids for o in reference.questions}
    assert go_ranked == ref_ranked
    assert through_go.metrics.values == reference.metrics.values
    assert 0 < through_go.metrics.values["top1_hit_rate"] < 1  # a ranking, not a constant


@pytest.mark.parametrize(
    "question",
    [c * 2 for c in WHITE_SPACE] + [" \t\u3000 "],
    ids=lambda q: f"U+{ord(q[0]):04X}",
)
async def test_blank_questions_are_refused_as_the_proto_says(
    go_server: ServerProcess, question: str
) -> None:
    async with GrpcRetrieverClient(go_server.target) as client:
        with pytest.raises(RetrieverRejected, match="question must not be blank"):
            await client.retrieve(question, 5)


@pytest.mark.parametrize("question", ["\x1c", "\u200b", "\ufeff", "\u180e"])
async def test_characters_outside_white_space_are_a_question(
    go_server: ServerProcess, question: str
) -> None:
    """Go's unicode.IsSpace is the proto's list: what others trim is text here, too."""
    async with GrpcRetrieverClient(go_server.target) as client:
        assert len(await client.retrieve(question, 5)) == 0


@pytest.mark.parametrize(
    ("question", "limit", "accepted"),
    [
        ("backup " * (MAX_QUESTION_BYTES // 7), MAX_LIMIT, True),
        ("é" * (MAX_QUESTION_BYTES // 2), MIN_LIMIT, True),
        ("é" * (MAX_QUESTION_BYTES // 2 + 1), 3, False),
        ("backup", MAX_LIMIT + 1, False),
        ("backup", MIN_LIMIT - 1, False),
        ("", 3, False),
    ],
)
async def test_the_go_server_enforces_the_limits_python_defines(
    go_server: ServerProcess, question: str, limit: int, accepted: bool
) -> None:
    """The Go example keeps its own copy of the limits; this keeps it equal to ours. Asked
    through a bare stub: reval's client refuses an over-long question before sending it,
    and this is about what the server itself enforces."""
    request = pb.RetrieveRequest(question=question, limit=limit)
    async with grpc.aio.insecure_channel(go_server.target) as channel:
        stub = pb_grpc.RetrieverStub(channel)
        if accepted:
            await stub.Retrieve(request, timeout=10)
        else:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.Retrieve(request, timeout=10)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_token_is_required_when_configured(go_binary: Path) -> None:
    server = start_go(go_binary, {"RETRIEVER_TOKEN": "go-s3cret"})
    try:
        async with GrpcRetrieverClient(server.target, ClientOptions(token="go-s3cret")) as ok:
            assert (await ok.describe()).identifier == "go-keyword-overlap"
        async with GrpcRetrieverClient(server.target, ClientOptions(token="wrong")) as bad:
            with pytest.raises(RetrieverUnauthenticated, match="missing or wrong bearer token"):
                await bad.retrieve("backup", 3)
    finally:
        server.stop()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_cleanly(go_binary: Path, signum: signal.Signals) -> None:
    server = start_go(go_binary)
    assert server.stop(signum) == 0
    assert server.lines[-1] == f"stopped ({signum.name})"


def test_a_bad_corpus_is_a_one_line_error_with_exit_two(go_binary: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text('{"_id": "a", "text": "x"}\n{"text": "no id"}\n', encoding="utf-8")
    done = subprocess.run(
        [str(go_binary), "-corpus", str(corpus), "0"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stderr == f'go-retriever: {corpus}:2: missing, empty or repeated "_id"\n'
