"""Scale-out over retriever replicas: reval's engine against 1, 2, 4 and 8 replicas.

Each replica is its own process serving a retriever with a fixed service time (an async
sleep of ``--service-ms``: CPU-light, like a call waiting on a model server) on its own
loopback address (127.0.0.1, 127.0.0.2, ...) and one shared port. For each replica count
``n`` the same engine (``evaluate_set`` through ``open_retriever``, so round_robin over
every address) runs at concurrency ``n x --per-replica`` through two targets naming the
same replicas:

- ``ipv4:127.0.0.1:P,127.0.0.2:P,...``, a static list;
- ``dns://127.0.0.1:DNSPORT/replicas.test:P``, a name with ``n`` A records served by a
  loopback DNS server (the shape of a Kubernetes headless service). ``dns:///localhost:P``
  resolves through the system resolver, which names only 127.0.0.1 here (one replica).

Printed per row: throughput, the ratio to linear scaling (n x the one-replica throughput
measured in the same run; target >= 0.80), the ideal (in flight / service time), the
client's CPU per question (process time, all threads) and the replicas' CPU per question
(from /proc), and the client ceiling: the throughput at which the client would use one
whole core (1 / its CPU per question). On a machine with fewer cores than replicas +
client, the replicas' own CPU is a ceiling too: the row says which one binds. With
``--rounds R`` each row is the best of R rounds (the one least disturbed by other load).

    python benchmarks/bench_replicas.py          # 4,000 questions and 4 in flight per replica
    python benchmarks/bench_replicas.py --per-replica-questions 500 --replicas 1,2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from replicas import LoopbackDns, Replicas

from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.retrievers.opening import open_retriever

TICKS = os.sysconf("SC_CLK_TCK")


def make_set(n: int) -> GoldenQuestionSet:
    return GoldenQuestionSet(
        "bench",
        tuple(
            GoldenQuestion(f"q{i}", f"question {i}", Form.MATCH, (f"doc{i % 1000}",))
            for i in range(n)
        ),
    )


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


async def measure(spec: str, qs: GoldenQuestionSet, concurrency: int) -> tuple[float, float]:
    """Wall time and client CPU of one evaluation (after a Describe, to connect first)."""
    retriever = open_retriever(spec, timeout_s=30)
    try:
        await retriever.describe()
        started, cpu = time.perf_counter(), time.process_time()
        run = await evaluate_set(qs, retriever, EvalOptions(concurrency=concurrency))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        await retriever.close()
    if run.error_count or len(run.questions) != len(qs) or run.metrics.values["top1_hit_rate"] != 1:
        raise SystemExit(f"{spec}: the run went wrong ({run.error_count} errors)")
    return elapsed, cpu


def row(
    label: str, n: int, q: int, elapsed: float, cpu: float, server_cpu: float, base: float,
    ideal: float,
) -> str:  # fmt: skip
    rate = q / elapsed
    client_ms, server_ms = cpu / q * 1000, server_cpu / q * 1000
    ceiling = 1000 / client_ms if client_ms else float("inf")
    cores = (cpu + server_cpu) / elapsed
    return (
        f"{label:<5} {n:>3} {q:>8,} {rate:>9,.0f} {rate / (n * base):>7.2f} "
        f"{rate / ideal:>7.2f} {client_ms:>11.3f} {server_ms:>12.3f} {ceiling:>10,.0f} "
        f"{cores:>6.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", default="1,2,4,8", help="replica counts, e.g. 1,2,4,8")
    parser.add_argument("--per-replica-questions", type=int, default=4000)
    parser.add_argument("--per-replica", type=int, default=4, help="calls in flight each")
    parser.add_argument("--service-ms", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=1, help="best of, per row")
    args = parser.parse_args()
    counts = [int(c) for c in args.replicas.split(",")]
    print(
        f"service time {args.service_ms:g} ms · {args.per_replica} in flight per replica · "
        f"{args.per_replica_questions:,} questions per replica · {os.cpu_count()} CPUs · "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    header = (
        f"{'via':<5} {'n':>3} {'questions':>8} {'q/s':>9} {'linear':>7} {'ideal':>7} "
        f"{'client ms/q':>11} {'replica ms/q':>12} {'client cap':>10} {'cores':>6}"
    )
    print(header)
    print("-" * len(header))
    base: dict[str, float] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        Replicas(max(counts), args.service_ms, Path(tmp)) as all_,
    ):
        for n in counts:
            hosts = all_.replicas[:n]
            qs = make_set(args.per_replica_questions * n)
            concurrency = args.per_replica * n
            ideal = concurrency / (args.service_ms / 1000)
            with LoopbackDns([r.host for r in hosts]) as dns:
                specs = {
                    "ipv4": "ipv4:" + ",".join(f"{r.host}:{all_.port}" for r in hosts),
                    "dns": dns.target("replicas.test", all_.port),
                }
                best: dict[str, tuple[float, float, float]] = {}
                for round_ in range(args.rounds):  # alternating order, the best round kept
                    for via in list(specs)[:: 1 if round_ % 2 == 0 else -1]:
                        before = [cpu_seconds(r.process.pid) for r in hosts]
                        elapsed, cpu = asyncio.run(measure(specs[via], qs, concurrency))
                        after = [cpu_seconds(r.process.pid) for r in hosts]
                        server_cpu = sum(a - b for a, b in zip(after, before, strict=True))
                        if via not in best or elapsed < best[via][0]:
                            best[via] = (elapsed, cpu, server_cpu)
                for via, (elapsed, cpu, server_cpu) in best.items():
                    base.setdefault(via, len(qs) / elapsed)
                    print(row(via, n, len(qs), elapsed, cpu, server_cpu, base[via], ideal))
    print(
        "linear: q/s over n x the one-replica q/s (same run, same via); ideal: q/s over "
        "in flight / service time; client cap: 1 / client CPU per question (one core); "
        "cores: CPU used by client + replicas over wall time (the machine's ceiling when it "
        "nears the cores free for the run)"
    )


if __name__ == "__main__":
    main()
