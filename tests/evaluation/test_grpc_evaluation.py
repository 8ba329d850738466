"""The coordinator against live gRPC servers (the SDK's ``serve``) through ``evaluate``."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from retrieval_eval.errors import RetrieverUnavailable
from retrieval_eval.evaluation.coordinator import EvalOptions, EvaluationInterrupted, evaluate
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RetrieverDescription, RunState
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import ServerHandle, serve


class Chunked:
    """Answers "question i" with two chunks of doc{i + shift}, then filler documents."""

    def __init__(self, name: str, *, shift: int = 0, delay: float = 0.0, fail_on: int = -1):
        self.name, self.shift, self.delay, self.fail_on = name, shift, delay, fail_on
        self.calls = 0
        self.lock = threading.Lock()

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription(self.name, "2", chunk_separator="::")

    async def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        with self.lock:
            self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        i = int(question.rsplit(" ", 1)[-1])
        if i == self.fail_on:
            raise RuntimeError(f"index shard for question {i} is missing")
        doc = f"doc{i + self.shift}"
        ids = [f"{doc}::0", f"{doc}::1", "filler-a::0", "filler-b::3"]
        return [RetrievedItem(x, score=1.0 / (n + 1)) for n, x in enumerate(ids)][:limit]


def make_set(name: str, n: int) -> GoldenQuestionSet:
    questions = tuple(
        GoldenQuestion(f"{name}{i}", f"question {i}", Form.GAP, (f"doc{i}",)) for i in range(n)
    )
    return GoldenQuestionSet(name, questions)


@pytest.fixture
def servers() -> Iterator[Callable[[Chunked], str]]:
    """Start a live server for a retriever; returns its address. Stopped at teardown."""
    started: list[ServerHandle] = []

    def start(retriever: Chunked) -> str:
        handle = serve(retriever, "127.0.0.1:0")
        started.append(handle)
        return handle.address

    yield start
    for handle in started:
        handle.stop(grace=None)


def test_two_sets_against_two_live_retrievers_in_one_call(servers) -> None:
    exact, off_by_one = Chunked("exact"), Chunked("shifted", shift=1)
    specs = [f"grpc://{servers(exact)}", f"grpc://{servers(off_by_one)}"]
    sets = [make_set("first", 30), make_set("second", 20)]
    runs = evaluate(sets, specs, EvalOptions(concurrency=4, labels={"ci": "yes"}))
    assert [(r.set_name, r.retriever.identifier) for r in runs] == [
        ("first", "exact"),
        ("first", "shifted"),
        ("second", "exact"),
        ("second", "shifted"),
    ]
    assert [r.retriever_target for r in runs[:2]] == specs
    assert all(r.state is RunState.COMPLETE for r in runs)
    assert runs[0].metrics.values["top1_hit_rate"] == 1.0
    assert runs[1].metrics.values["top3_hit_rate"] == 0.0
    # The separator came from Describe: chunks collapsed to three distinct documents.
    assert runs[0].parameters.doc_id_separator == "::"
    assert runs[0].questions[7].ranked_document_ids == ("doc7", "filler-a", "filler-b")
    assert runs[0].questions[7].raw_ids[:2] == ("doc7::0", "doc7::1")
    assert (exact.calls, off_by_one.calls) == (50, 50)
    assert runs[2].labels == {"ci": "yes"}
    latency = runs[0].latency
    assert latency is not None and 0 < latency.p50_ms <= latency.p95_ms <= latency.p99_ms


def test_two_replicas_behind_one_target_both_serve(servers) -> None:
    first, second = Chunked("replicated"), Chunked("replicated")
    a, b = servers(first), servers(second)
    target = f"ipv4:{a},{b}"
    (run,) = evaluate([make_set("s", 60)], [target], EvalOptions(concurrency=4))
    assert run.complete and run.metrics.values["top1_hit_rate"] == 1.0
    assert first.calls + second.calls == 60
    assert first.calls >= 10 and second.calls >= 10  # round_robin spreads the calls


def test_a_failing_question_is_an_error_and_the_run_incomplete(servers) -> None:
    flaky = Chunked("flaky", fail_on=3)
    (run,) = evaluate([make_set("s", 8)], [f"grpc://{servers(flaky)}"])
    assert run.state is RunState.INCOMPLETE
    (failed,) = [q for q in run.questions if q.error is not None]
    assert failed.question_id == "s3" and failed.error is not None
    assert failed.error.kind == "internal"
    assert "index shard for question 3 is missing" in failed.error.message
    assert (run.metrics.count, run.metrics.errors) == (7, 1)
    assert run.metrics.values["top1_hit_rate"] == 1.0


def test_a_deadline_exceeded_is_a_timeout_error(servers) -> None:
    slow = Chunked("slow", delay=1.0)
    options = EvalOptions(timeout_s=0.1)
    (run,) = evaluate([make_set("s", 2)], [f"grpc://{servers(slow)}"], options)
    assert [q.error.kind for q in run.questions if q.error] == ["timeout", "timeout"]


def test_a_retriever_down_at_the_start_fails_fast(servers) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens once the socket is closed
    live = Chunked("live")
    specs = [f"grpc://{servers(live)}", f"grpc://127.0.0.1:{port}"]
    started = time.monotonic()
    with pytest.raises(RetrieverUnavailable, match=f"127.0.0.1:{port}"):
        evaluate([make_set("s", 5)], specs, EvalOptions(timeout_s=2.0))
    assert live.calls == 0
    assert time.monotonic() - started < 10


def test_ctrl_c_keeps_the_measured_part(servers) -> None:
    slow = Chunked("slow", delay=0.01)
    spec = f"grpc://{servers(slow)}"

    def interrupt_after_some_calls() -> None:
        while slow.calls < 40:
            time.sleep(0.005)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_after_some_calls, daemon=True).start()
    with pytest.raises(EvaluationInterrupted) as caught:
        evaluate([make_set("s", 2000)], [spec], EvalOptions(concurrency=2))
    (run,) = caught.value.runs
    assert run.state is RunState.INTERRUPTED and not run.complete
    assert 30 <= len(run.questions) < 2000
    assert all(q.error is None and q.top1_hit for q in run.questions)
    assert run.metrics.count == len(run.questions)
