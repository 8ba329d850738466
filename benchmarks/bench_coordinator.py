"""Coordinator overhead: reval's engine vs a bare grpc.aio loop, same server, same calls.

One trivial retriever is served by ``retrieval_eval.serve`` in a separate process (so the
server does not share the client's interpreter). The same N questions are then sent
by (a) a bare loop: ``concurrency`` tasks calling the generated stub directly, and
(b) reval's engine: ``evaluate_set`` with ``GrpcRetrieverClient`` at the same
concurrency, which adds conversion to records, deadlines, error handling, latency
bookkeeping, scoring, metrics and percentiles. Rounds alternate between the two; the
best and the median round of each are printed with the ratios engine / bare (target
>= 0.90): the best round is the one least disturbed by other load on the machine. The
client CPU per question (process time, all threads; the median over rounds) is the figure
that holds on a shared machine: engine / bare, target <= 1.10. Then each step the engine
adds is timed alone on the benchmark's own answers: the profile of what remains.

    python benchmarks/bench_coordinator.py                  # 20,000 questions, 32 in flight
    python benchmarks/bench_coordinator.py --questions 5000 --rounds 1
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import grpc

from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate_set
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

LIMIT = 12  # the default request: top-3 * overfetch 4


class Trivial:
    """Answers every question with ``limit`` chunk ids of a few documents, at once."""

    async def retrieve(self, question: str, limit: int) -> list[str]:
        n = int(question.rsplit(" ", 1)[-1])
        return [f"doc{(n + i // 2) % 1000}#{i % 2}" for i in range(limit)]

    def describe(self) -> str:
        return "trivial"


def serve_forever() -> None:
    from retrieval_eval import serve

    with serve(Trivial(), "127.0.0.1:0", max_concurrency=256) as handle:
        print(handle.port, flush=True)
        sys.stdin.read()  # until the parent closes our stdin


def make_set(n: int) -> GoldenQuestionSet:
    return GoldenQuestionSet(
        "bench",
        tuple(
            GoldenQuestion(f"q{i}", f"question {i}", Form.MATCH, (f"doc{(i + 1) % 1000}",))
            for i in range(n)
        ),
    )


async def bare_loop(
    target: str, questions: list[str], concurrency: int, timeout: float
) -> tuple[float, float]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.RetrieverStub(channel)
        await stub.Describe(pb.DescribeRequest(), timeout=timeout)
        jobs = iter(questions)

        async def worker() -> None:
            for text in jobs:
                await stub.Retrieve(pb.RetrieveRequest(question=text, limit=LIMIT), timeout=timeout)

        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started, time.process_time() - cpu


async def engine(
    target: str, qs: GoldenQuestionSet, concurrency: int, timeout: float
) -> tuple[float, float]:
    from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient

    options = EvalOptions(concurrency=concurrency, timeout_s=timeout)
    async with GrpcRetrieverClient(target, ClientOptions(timeout_s=timeout)) as client:
        await client.describe()  # connect first, as the bare loop does
        started, cpu = time.perf_counter(), time.process_time()
        run = await evaluate_set(qs, client, options)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    if run.error_count or len(run.questions) != len(qs):
        raise SystemExit(f"engine run went wrong: {run.error_count} errors")
    return elapsed, cpu


async def _noop_call(question: str, limit: int) -> list[str]:
    await asyncio.sleep(0)  # yield once, as a network call would
    return []


async def pool_of_workers(questions: list[str], concurrency: int) -> float:
    """The engine's scheduling: a fixed pool of tasks pulling from one shared iterator."""
    jobs = iter(questions)

    async def worker() -> None:
        for text in jobs:
            await _noop_call(text, LIMIT)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started


async def task_per_question(questions: list[str], concurrency: int) -> float:
    """The alternative: one task per question, bounded by a semaphore."""
    slots = asyncio.Semaphore(concurrency)

    async def one(text: str) -> None:
        async with slots:
            await _noop_call(text, LIMIT)

    started = time.perf_counter()
    await asyncio.gather(*(one(text) for text in questions))
    return time.perf_counter() - started


def scheduling(n: int, concurrency: int) -> None:
    """Scheduling cost alone (no network): why the engine uses a fixed pool of workers."""
    texts = [f"question {i}" for i in range(n)]
    pool = min(asyncio.run(pool_of_workers(texts, concurrency)) for _ in range(3))
    tasks = min(asyncio.run(task_per_question(texts, concurrency)) for _ in range(3))
    print(f"scheduling only, {n} no-op calls at concurrency {concurrency} (best of 3):")
    print(f"  pool of {concurrency:<3} workers         : {pool / n * 1e6:6.1f} us/question")
    print(f"  task per question + semaphore: {tasks / n * 1e6:6.1f} us/question")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_forever()
        return
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = server.stdout.readline().strip()
        if not port.isdigit():
            raise SystemExit("the benchmark server did not start (see its error above)")
        target = f"127.0.0.1:{port}"
        qs = make_set(args.questions)
        texts = [q.question for q in qs.questions]
        warm = make_set(2000)
        asyncio.run(bare_loop(target, texts[:2000], args.concurrency, args.timeout))
        asyncio.run(engine(target, warm, args.concurrency, args.timeout))
        figures: dict[str, list[tuple[float, float]]] = {"bare": [], "engine": []}
        for round_ in range(args.rounds):
            order = ("bare", "engine") if round_ % 2 == 0 else ("engine", "bare")
            for name in order:
                if name == "bare":
                    coro = bare_loop(target, texts, args.concurrency, args.timeout)
                else:
                    coro = engine(target, qs, args.concurrency, args.timeout)
                figures[name].append(asyncio.run(coro))
    finally:
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    report(figures, args.questions, args.concurrency)
    remaining(args.questions)
    scheduling(args.questions, args.concurrency)


def report(figures: dict[str, list[tuple[float, float]]], n: int, concurrency: int) -> None:
    """Best round (least disturbed by other load, as timeit reports) and median round;
    the client CPU per question (process time, all threads) as the median over rounds."""
    rates = {name: [n / wall for wall, _ in runs] for name, runs in figures.items()}
    cpu_us = {name: statistics.median(c for _, c in runs) / n * 1e6
              for name, runs in figures.items()}  # fmt: skip
    print(f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f} · questions={n} "
          f"concurrency={concurrency} rounds={len(rates['bare'])}")  # fmt: skip
    for label, name in (("bare grpc.aio loop", "bare"), ("reval engine", "engine")):
        print(
            f"{label:<19}: best {max(rates[name]):6.0f} q/s, median "
            f"{statistics.median(rates[name]):6.0f} q/s, client CPU {cpu_us[name]:4.0f} us/q"
            f"  (CPU per round: {_fmt([c / n * 1e6 for _, c in figures[name]])} us/q)"
        )
    best = max(rates["engine"]) / max(rates["bare"])
    median = statistics.median(rates["engine"]) / statistics.median(rates["bare"])
    cpu = cpu_us["engine"] / cpu_us["bare"]
    print(f"ratio engine/bare  : {best:.3f} best-of-rounds, {median:.3f} median  (target >= 0.90)")
    print(f"client CPU ratio   : {cpu:.3f} engine/bare, medians of the rounds (target <= 1.10)")


def remaining(n: int) -> None:
    """What the engine adds per question, step by step, timed alone in this process on
    the benchmark's own answers (CPU time; gRPC's work is the rest). The run above has no
    chunk separator (the trivial retriever declares none), so its scoring collapses
    nothing; the same answers scored as chunks of documents (separator ``#``) are shown
    apart: what a retriever that declares chunk ids costs more."""
    from retrieval_eval.evaluation.accumulate import RunAccumulator
    from retrieval_eval.records.parameters import RunParameters
    from retrieval_eval.records.run import RetrieverDescription
    from retrieval_eval.retrievers.client.wire import plain_ids
    from retrieval_eval.retrievers.protocol import Ranking

    qs = make_set(n)
    wire = [
        pb.RetrieveResponse(results=[pb.RetrievedItem(document_id=d) for d in
                                     asyncio.run(Trivial().retrieve(q.question, LIMIT))])
        .SerializeToString()
        for q in qs.questions
    ]  # fmt: skip
    steps: list[tuple[str, float]] = []

    def step(name: str, work: Callable[[], object]) -> object:
        cpu = time.process_time()
        result = work()
        steps.append((name, (time.process_time() - cpu) / n * 1e6))
        return result

    parse = pb.RetrieveResponse.FromString
    step("parse the response (the bare loop's stub does)", lambda: [parse(w) for w in wire])
    read = step("read its ids, judged on sight (the client does)",
                lambda: [plain_ids(w, LIMIT) for w in wire])  # fmt: skip
    rankings = [Ranking(ids) for ids in read if ids is not None]  # type: ignore[attr-defined]
    if len(rankings) != n:
        raise SystemExit("the benchmark's answers did not take the client's usual path")

    def accumulator(separator: str) -> RunAccumulator:
        description = RetrieverDescription("trivial", chunk_separator=separator)
        params = RunParameters(doc_id_separator=separator)
        return RunAccumulator(qs, "bench", description, params, checked=True)

    def record_all(acc: RunAccumulator) -> None:
        for i, ranking in enumerate(rankings):
            acc.record(i, ranking, None, 1.0)

    acc = accumulator("")
    step("scoring each answer (hits, tally; kept)", lambda: record_all(acc))
    step("run record (metrics, breakdowns, latency)", lambda: acc.result({}))
    chunked = accumulator("#")
    step("(chunk ids collapsed to documents instead)", lambda: record_all(chunked))
    print(f"what the engine adds, per question, each step alone ({n} questions, CPU):")
    for name, us in steps:
        print(f"  {name:<52}{us:6.1f} us")
    own = sum(us for _, us in steps[1:4])
    print(f"  {'engine steps in total (its reading included)':<52}{own:6.1f} us")


def _fmt(rates: list[float]) -> str:
    return ", ".join(f"{r:.0f}" for r in rates)


if __name__ == "__main__":
    main()
