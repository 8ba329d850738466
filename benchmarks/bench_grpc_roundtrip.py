"""Round trip of one Retrieve over loopback: reval's async client vs a bare grpc.aio loop.

A trivial retriever (``limit`` ids, no work) is served by ``retrieval_eval.serve`` in a
separate process, once with a sync ``retrieve`` and once with an ``async def`` one. For
each, at concurrency 1 and 32, the same number of calls is made by (a) a bare loop of
tasks calling the generated stub directly (the baseline) and (b) ``GrpcRetrieverClient``
(deadline, token-free metadata, retry wrapper, conversion to records). Rounds alternate
between the two; per side the median round is printed: calls/s, p50 and p95 latency, and
the ratio client / bare.

    python benchmarks/bench_grpc_roundtrip.py                    # 4000 calls, 5 rounds
    python benchmarks/bench_grpc_roundtrip.py --calls 1000 --rounds 1 --retriever async
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

import grpc

from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

LIMIT = 12  # the evaluator's default request: top-3 * overfetch 4
QUESTION = "what does a trivial retriever return"


class SyncTrivial:
    def retrieve(self, question: str, limit: int) -> list[str]:
        return [f"doc{i}" for i in range(limit)]


class AsyncTrivial:
    async def retrieve(self, question: str, limit: int) -> list[str]:
        return [f"doc{i}" for i in range(limit)]


def serve_forever(kind: str) -> None:
    from retrieval_eval import serve

    retriever = AsyncTrivial() if kind == "async" else SyncTrivial()
    with serve(retriever, "127.0.0.1:0", max_concurrency=64) as handle:
        print(handle.port, flush=True)
        sys.stdin.read()  # until the parent closes our stdin


Call = Callable[[], Awaitable[object]]


Round = tuple[float, list[float], float]


async def measure(call: Call, calls: int, concurrency: int) -> Round:
    """Run ``calls`` calls from ``concurrency`` tasks: (calls/s, latencies in ms, client
    CPU µs per call). CPU time is steadier than wall time on a busy machine."""
    latencies: list[float] = []
    per_task = calls // concurrency

    async def worker() -> None:
        clock = time.perf_counter
        for _ in range(per_task):
            start = clock()
            await call()
            latencies.append((clock() - start) * 1000)

    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    n = len(latencies)
    return n / (time.perf_counter() - start), latencies, (time.process_time() - cpu) / n * 1e6


def summary(rounds: list[Round]) -> tuple[float, float, float, float]:
    """Median round by throughput: (calls/s, p50 ms, p95 ms); median CPU µs per call."""
    rate, latencies, _ = sorted(rounds, key=lambda r: r[0])[len(rounds) // 2]
    cuts = statistics.quantiles(latencies, n=100)
    return rate, cuts[49], cuts[94], statistics.median(r[2] for r in rounds)


async def compare(address: str, calls: int, concurrency: int, rounds: int) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.RetrieverStub(channel)
        client = GrpcRetrieverClient(address, ClientOptions(timeout_s=10))

        def bare() -> Awaitable[object]:
            request = pb.RetrieveRequest(question=QUESTION, limit=LIMIT)
            return stub.Retrieve(request, timeout=10)

        def ours() -> Awaitable[object]:
            return client.retrieve(QUESTION, LIMIT)

        for warm in (bare, ours):  # connect and warm up both
            await measure(warm, 200, concurrency)
        results: dict[str, list[Round]] = {"bare": [], "client": []}
        for n in range(rounds):  # alternate which side goes first
            order = [("bare", bare), ("client", ours)]
            for side, call in order if n % 2 == 0 else reversed(order):
                results[side].append(await measure(call, calls, concurrency))
        await client.close()
    base, mine = summary(results["bare"]), summary(results["client"])
    for name, (rate, p50, p95, cpu) in (("bare grpc.aio", base), ("GrpcRetrieverClient", mine)):
        latency = f"p50 {p50:6.3f} ms  p95 {p95:6.3f} ms  client CPU {cpu:5.0f} µs/call"
        print(f"  c={concurrency:<3} {name:20s} {rate:7.0f} calls/s  {latency}")
    ratios = (mine[0] / base[0], mine[1] / base[1], mine[2] / base[2], mine[3] / base[3])
    print(
        f"  c={concurrency:<3} ratio client/bare:  throughput {ratios[0]:.3f}  p50 {ratios[1]:.3f}"
        f"  p95 {ratios[2]:.3f}  CPU/call {ratios[3]:.3f}"
    )


def run(kind: str, calls: int, rounds: int, concurrencies: list[int]) -> None:
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        print(f"{kind} retriever served by retrieval_eval.serve on 127.0.0.1:{port}")
        for concurrency in concurrencies:
            asyncio.run(compare(f"127.0.0.1:{port}", calls, concurrency, rounds))
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=4000, help="calls per round and side")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", default="1,32", help="comma-separated levels")
    parser.add_argument("--retriever", choices=["sync", "async", "both"], default="both")
    parser.add_argument("--serve", choices=["sync", "async"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_forever(args.serve)
        return
    levels = [int(c) for c in args.concurrency.split(",")]
    kinds = ["sync", "async"] if args.retriever == "both" else [args.retriever]
    print(f"{args.calls} calls x {args.rounds} rounds per side, limit {LIMIT}; median round")
    for kind in kinds:
        run(kind, args.calls, args.rounds, levels)


if __name__ == "__main__":
    main()
