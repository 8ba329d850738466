"""Several replicas behind one target: ``ipv4:`` lists and ``dns:`` names resolving to
several addresses, with real replica processes on loopback (see tools/replicas.py).

What must hold: calls spread over every replica (round_robin), a ``dns:`` target works
end to end through the CLI, and a replica killed mid-run costs only its calls in
flight, which the client retries on the others: the run stays complete, with no error.
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from support.tools import load_tool

from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.run import RunResult, RunState
from retrieval_eval.retrievers.opening import open_retriever

replicas_tool = load_tool("replicas")
LoopbackDns, Replicas = replicas_tool.LoopbackDns, replicas_tool.Replicas
SERVICE_MS = 20
REVAL = Path(sys.executable).parent / "reval"


def numbered_set(n: int) -> GoldenQuestionSet:
    """``question i`` expects ``doc i``, which the sleeping replicas rank first."""
    return GoldenQuestionSet(
        "numbered",
        tuple(
            GoldenQuestion(f"q{i}", f"question {i}", Form.MATCH, (f"doc{i % 1000}",))
            for i in range(n)
        ),
    )


def assert_all_answered(run: RunResult, n: int) -> None:
    assert run.state is RunState.COMPLETE
    assert run.error_count == 0
    assert len(run.questions) == n
    assert run.metrics.values["top1_hit_rate"] == 1.0


async def evaluate(spec: str, n: int, concurrency: int) -> RunResult:
    retriever = open_retriever(spec)
    try:
        return await evaluate_set(numbered_set(n), retriever, EvalOptions(concurrency=concurrency))
    finally:
        await retriever.close()


@pytest.mark.parametrize("addressing", ["ipv4", "dns"])
async def test_calls_spread_over_every_replica(addressing, tmp_path):
    with Replicas(4, SERVICE_MS, tmp_path) as replicas, LoopbackDns(replicas.hosts) as dns:
        spec = replicas.ipv4_target
        if addressing == "dns":
            spec = dns.target("replicas.reval.test", replicas.port)
        run = await evaluate(spec, 200, concurrency=16)
        answered = replicas.answered()
    assert_all_answered(run, 200)
    assert sum(answered) == 200
    # round_robin: each of the four replicas takes about a quarter of the calls
    assert min(answered) >= 25, answered
    if addressing == "dns":
        assert dns.queries >= 1


async def test_a_replica_killed_mid_run_costs_only_its_calls_in_flight(tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="retrieval_eval")
    n, concurrency = 600, 16
    with Replicas(4, SERVICE_MS, tmp_path) as replicas:
        victim = replicas.replicas[1]

        async def kill_when_busy() -> int:
            while victim.answered < 30:
                await asyncio.sleep(0.005)
            victim.kill()
            return victim.answered

        killer = asyncio.create_task(kill_when_busy())
        run = await evaluate(replicas.ipv4_target, n, concurrency)
        answered_by_victim = await killer
        answered = replicas.answered()
    assert_all_answered(run, n)
    assert victim.process.returncode is not None and victim.process.returncode < 0
    survivors = [a for r, a in zip(replicas.replicas, answered, strict=True) if r is not victim]
    # every question was answered once by someone; at most the calls in flight on the
    # victim when it died (answered there, but the answer lost) were answered twice
    assert n <= answered_by_victim + sum(survivors) <= n + concurrency
    assert answered_by_victim < n // 4  # it did stop taking calls
    retries = [r for r in caplog.records if "retry" in r.getMessage()]
    assert 1 <= len(retries) <= concurrency, [r.getMessage() for r in retries]
    assert all("UNAVAILABLE" in r.getMessage() for r in retries)


def test_a_dns_target_end_to_end_through_the_cli(tmp_path):
    set_file = tmp_path / "numbered.jsonl"
    set_file.write_text(
        "".join(
            json.dumps({"id": q.id, "question": q.question, "form": "MATCH",
                        "expected_document_ids": list(q.expected_document_ids)}) + "\n"
            for q in numbered_set(40).questions
        )
    )  # fmt: skip
    with Replicas(2, 1, tmp_path) as replicas, LoopbackDns(replicas.hosts) as dns:
        targets = {
            "dns-name": dns.target("replicas.reval.test", replicas.port),
            # localhost resolves through the system resolver (here to 127.0.0.1 only)
            "localhost": f"dns:///localhost:{replicas.port}",
        }
        for name, target in targets.items():
            out = tmp_path / f"{name}.json"
            result = subprocess.run(
                [REVAL, "eval", "--set", set_file, "--retriever", target,
                "--db", f"sqlite:///{tmp_path / 'runs.sqlite'}",
                "--format", "json", "--output", out],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert result.returncode == 0, result.stderr
            (doc,) = json.loads(out.read_text())["runs"]
            assert doc["retriever"]["target"] == target
            assert doc["state"] == "complete"
            assert doc["metrics"]["top1_hit_rate"] == 1.0
        answered = replicas.answered()
    assert answered[1] > 0  # only the DNS name reaches 127.0.0.2
    assert sum(answered) == 2 * 40
