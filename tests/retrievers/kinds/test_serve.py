"""``reval serve NAME`` as a real process: a command kind, a fusion and a plugin each
become a gRPC retriever that passes the contract check, answers as the retriever does
in-process, reports its errors with the matching status, and stops (with its child
process) on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from retrieval_eval.errors import RetrieverUnavailable
from retrieval_eval.evaluation.coordinator import evaluate
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient
from retrieval_eval.retrievers.contract.check import check_contract

REVAL = str(Path(sys.executable).parent / "reval")
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "command-retriever" / "retriever.py"
CRASHER = textwrap.dedent(
    """
    import json, os, sys
    for line in sys.stdin:
        request = json.loads(line)
        q = request["question"]
        if q == "crash":
            sys.exit(4)
        answer = {"id": request["id"], "results": [{"document_id": q, "score": os.getpid()}]}
        print(json.dumps(answer), flush=True)
    """
)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "crasher.py").write_text(CRASHER, encoding="utf-8")
    path = tmp_path / "reval.toml"
    path.write_text(
        "[retrievers.overlap]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "{EXAMPLE}", "{corpus_path()}"]\n'
        "[retrievers.crasher]\n"
        'kind = "command"\n'
        f'command = ["{sys.executable}", "crasher.py"]\n'
        "[retrievers.hybrid]\n"
        'fuse = ["overlap", "crasher"]\n'
    )
    return path


class Served:
    def __init__(self, spec: str, config: Path) -> None:
        self.process = subprocess.Popen(
            [REVAL, "serve", spec, "--config", str(config)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "serving NAME on 127.0.0.1:PORT; ..."
        assert line.startswith("serving "), line + (
            self.process.stderr.read() if self.process.stderr else ""
        )
        self.address = line.split(" on ")[1].split(";")[0]

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=30)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return code


@pytest.fixture
def serve(config: Path) -> Iterator[object]:
    started: list[Served] = []

    def start(spec: str) -> Served:
        served = Served(spec, config)
        started.append(served)
        return served

    yield start
    for served in started:
        if served.process.poll() is None:
            served.stop()


@pytest.mark.parametrize("spec", ["overlap", "hybrid", "bm25"])
def test_served_retrievers_pass_the_contract_and_answer_as_in_process(
    spec: str,
    config: Path,
    serve,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    if spec == "bm25":
        from reval_bm25.index import build_index

        build_index(corpus_path(), tmp_path / "index")
        spec = f"bm25:{tmp_path / 'index'}"
    served = serve(spec)
    results = asyncio.run(check_contract(f"grpc://{served.address}"))
    assert all(r.passed for r in results), [(r.name, r.detail) for r in results if not r.passed]
    questions = load_question_set(questions_path())
    remote, local = evaluate([questions], [f"grpc://{served.address}", spec], config_path=config)
    assert remote.complete and local.complete
    assert remote.retriever.identifier == local.retriever.identifier  # one lineage
    assert remote.retriever.version == local.retriever.version
    assert [q.raw_ids for q in remote.questions] == [q.raw_ids for q in local.questions]


async def test_errors_travel_as_their_status_and_sigterm_stops_the_child(
    serve,  # type: ignore[no-untyped-def]
) -> None:
    served = serve("crasher")
    client = GrpcRetrieverClient(served.address, ClientOptions(timeout_s=10, max_attempts=1))
    try:
        first = await client.retrieve("hello", 5)
        with pytest.raises(RetrieverUnavailable, match="process exited with code 4"):
            await client.retrieve("crash", 5)
        again = await client.retrieve("hello", 5)
    finally:
        await client.close()
    child = int(again.scores[0] or 0)
    assert child != int(first.scores[0] or 0)  # restarted
    os.kill(child, 0)
    assert served.stop() == 0
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)


def test_serving_an_unknown_name_is_exit_2(config: Path) -> None:
    done = subprocess.run(
        [REVAL, "serve", "overlapp", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "unknown retriever 'overlapp'; did you mean 'overlap'" in done.stderr
