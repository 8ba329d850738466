"""Retriever kinds vs bare loops doing the same calls at the same concurrency.

- ``http``: one server process (uvicorn, a raw ASGI app answering Elasticsearch-shaped
  JSON with ``limit`` hits) is called (a) by bare loops: ``concurrency`` tasks posting the
  same JSON body with one ``aiohttp.ClientSession``, and with one ``httpx2.AsyncClient``
  (the client the kind was built on before), reading the ids and scores out of the parsed
  answer by hand, and (b) by the ``http`` kind's ``retrieve`` (template, JMESPath,
  contract checks, a body read to the contract's limit) from the same number of tasks.
- ``command``: a trivial JSON-lines process (answers ``limit`` results at once) driven
  (a) by a bare loop: a writer keeping ``concurrency`` requests in flight and a reader
  parsing each answer line, and (b) by the ``command`` kind's ``retrieve`` from
  ``concurrency`` tasks.

- imports: what importing aiohttp, httpx2 and the http kind's modules costs a fresh
  interpreter beyond ``python -c pass`` (once per process that uses the kind).

Each round runs every variant once, the order rotating from round to round; the medians
over the rounds are printed with the ratios kind / bare (goal: within 1.1x in questions
per second and in client CPU per question, the CPU of this process only: the servers run
elsewhere).

    python benchmarks/bench_kinds.py                     # both, 3 rounds
    python benchmarks/bench_kinds.py --only http --questions 5000 --rounds 5
    python benchmarks/bench_kinds.py --only imports --rounds 7   # the clients' import cost
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

LIMIT = 12
BODY = {"query": {"match": {"text": "{question}"}}, "size": "{limit}"}
PROCESS = """
import json, sys
out = sys.stdout
for line in sys.stdin:
    request = json.loads(line)
    results = [{"document_id": f"doc{i}", "score": 12.0 - i} for i in range(request["limit"])]
    out.write(json.dumps({"id": request["id"], "results": results}) + "\\n")
    out.flush()
"""


async def app(scope: dict, receive: Callable, send: Callable) -> None:  # type: ignore[type-arg]
    """An Elasticsearch-shaped ``_search`` answer: ``size`` hits, scores descending."""
    if scope["type"] != "http":
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    size = json.loads(body)["size"]
    hits = [{"_id": f"doc{i}", "_score": 12.0 - i} for i in range(size)]
    answer = json.dumps({"took": 0, "hits": {"hits": hits}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(answer)).encode()),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": answer})


def serve_http() -> None:
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, http="h11")
    uvicorn.Server(config).run(sockets=[sock])


Round = Callable[[list[str]], Awaitable[tuple[float, float]]]


async def timed(
    questions: list[str], concurrency: int, call: Callable[[str], Awaitable[object]]
) -> tuple[float, float]:
    jobs = iter(questions)

    async def worker() -> None:
        for text in jobs:
            await call(text)

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started, time.process_time() - cpu


async def http_bare_aiohttp(
    url: str, questions: list[str], concurrency: int
) -> tuple[float, float]:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=64)
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:

        async def call(text: str) -> object:
            body = json.dumps({"query": {"match": {"text": text}}, "size": LIMIT})
            async with session.post(url, data=body.encode()) as response:
                hits = json.loads(await response.read())["hits"]["hits"]
            return [h["_id"] for h in hits], [h["_score"] for h in hits]

        await call("warm up")
        return await timed(questions, concurrency, call)


async def http_bare_httpx2(url: str, questions: list[str], concurrency: int) -> tuple[float, float]:
    import httpx2

    limits = httpx2.Limits(max_connections=64, max_keepalive_connections=64)
    headers = {"Content-Type": "application/json"}
    async with httpx2.AsyncClient(limits=limits, timeout=None, headers=headers) as client:

        async def call(text: str) -> object:
            body = json.dumps({"query": {"match": {"text": text}}, "size": LIMIT})
            response = await client.post(url, content=body.encode())
            hits = json.loads(response.content)["hits"]["hits"]
            return [h["_id"] for h in hits], [h["_score"] for h in hits]

        await call("warm up")
        return await timed(questions, concurrency, call)


async def http_kind(
    config_path: Path, questions: list[str], concurrency: int
) -> tuple[float, float]:
    from retrieval_eval.retrievers.opening import open_retriever

    retriever = open_retriever("search", config_path=config_path)
    try:
        await retriever.retrieve("warm up", LIMIT)
        return await timed(questions, concurrency, lambda t: retriever.retrieve(t, LIMIT))
    finally:
        await retriever.close()


async def command_bare(script: Path, questions: list[str], concurrency: int) -> tuple[float, float]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    slots = asyncio.Semaphore(concurrency)

    async def writer() -> None:
        for n, text in enumerate(questions, 1):
            await slots.acquire()
            request = {"id": n, "question": text, "limit": LIMIT}
            stdin.write((json.dumps(request) + "\n").encode())

    async def reader() -> None:
        for n in range(1, len(questions) + 1):
            answer = json.loads(await stdout.readline())
            assert answer["id"] == n
            results = answer["results"]
            _ = [r["document_id"] for r in results], [r["score"] for r in results]
            slots.release()

    stdin.write(b'{"id": 0, "question": "warm up", "limit": 12}\n')
    await stdout.readline()
    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(writer(), reader())
    figures = time.perf_counter() - started, time.process_time() - cpu
    stdin.close()
    await proc.wait()
    return figures


async def command_calls(
    script: Path, questions: list[str], concurrency: int
) -> tuple[float, float]:
    """Bare, but one awaited call per question (the shape the coordinator needs): each of
    ``concurrency`` tasks writes its question and awaits its answer from one reader."""
    import collections

    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    loop = asyncio.get_running_loop()
    pending: collections.deque[tuple[int, asyncio.Future[dict]]] = collections.deque()  # type: ignore[type-arg]
    ids = iter(range(1, 1 << 62))

    async def reader() -> None:
        while line := await stdout.readline():
            answer = json.loads(line)
            request_id, future = pending.popleft()
            assert answer["id"] == request_id
            future.set_result(answer)

    async def call(text: str) -> object:
        future = loop.create_future()
        request_id = next(ids)
        pending.append((request_id, future))
        request = {"id": request_id, "question": text, "limit": LIMIT}
        stdin.write((json.dumps(request) + "\n").encode())
        results = (await future)["results"]
        return [r["document_id"] for r in results], [r["score"] for r in results]

    task = asyncio.ensure_future(reader())
    await call("warm up")
    figures = await timed(questions, concurrency, call)
    stdin.close()
    await proc.wait()
    await task
    return figures


async def command_kind(
    config_path: Path, questions: list[str], concurrency: int
) -> tuple[float, float]:
    from retrieval_eval.retrievers.opening import open_retriever

    retriever = open_retriever("proc", config_path=config_path)
    try:
        await retriever.retrieve("warm up", LIMIT)
        return await timed(questions, concurrency, lambda t: retriever.retrieve(t, LIMIT))
    finally:
        await retriever.close()


def compare(name: str, variants: dict[str, Round], n: int, rounds: int, concurrency: int) -> None:
    """Each variant once per round (the order rotating), medians over the rounds; the last
    variant is the kind, each other one a baseline it is compared with."""
    questions = [f"question number {i} about restoring files" for i in range(n)]
    names = list(variants)
    figures: dict[str, list[tuple[float, float]]] = {v: [] for v in names}
    for round_ in range(rounds):
        for which in names[round_ % len(names) :] + names[: round_ % len(names)]:
            figures[which].append(asyncio.run(variants[which](questions)))
    rates = {w: statistics.median(n / wall for wall, _ in runs) for w, runs in figures.items()}
    cpu = {w: statistics.median(c for _, c in runs) / n * 1e6 for w, runs in figures.items()}
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{name}: questions={n} concurrency={concurrency} rounds={rounds} (load average {load})")
    for which in names:
        print(
            f"  {which:<30}: median {rates[which]:6.0f} q/s, median client CPU "
            f"{cpu[which]:5.0f} us/q"
        )
    kind = names[-1]
    for base in names[:-1]:
        speed = rates[base] / rates[kind]
        cost = cpu[kind] / cpu[base]
        print(f"  {kind} vs {base}: {speed:.2f}x the time (median q/s), {cost:.2f}x client CPU/q")


def import_costs(rounds: int) -> None:
    """What importing each HTTP client costs a fresh interpreter (paid once per process
    that opens an ``http`` kind or calls a model server), the processes alternated round
    by round, medians; beside it ``python -c pass``."""
    programs = {
        "python -c pass": "pass",
        "import aiohttp": "import aiohttp",
        "import httpx2": "import httpx2",
        "the http kind's modules": "import retrieval_eval.retrievers.kinds.http.retriever",
    }
    wall: dict[str, list[float]] = {name: [] for name in programs}
    cpu: dict[str, list[float]] = {name: [] for name in programs}
    names = list(programs)
    for round_ in range(rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run([sys.executable, "-c", programs[name]], check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall[name].append(time.perf_counter() - started)
            cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    print(f"imports: fresh interpreters, {rounds} alternating rounds, medians beyond -c pass")
    for name in names[1:]:
        spent = (statistics.median(cpu[name]) - statistics.median(cpu[names[0]])) * 1000
        waited = (statistics.median(wall[name]) - statistics.median(wall[names[0]])) * 1000
        print(f"  {name:<30}: {spent:6.0f} ms CPU, {waited:6.0f} ms wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("http", "command", "imports"))
    parser.add_argument("--serve-http", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_http:
        serve_http()
        return
    n, c = args.questions, args.concurrency
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "reval.toml"
        script = Path(folder) / "trivial.py"
        script.write_text(PROCESS)
        if args.only in (None, "command"):
            config.write_text(
                f'[retrievers.proc]\nkind = "command"\ncommand = ["{sys.executable}", "{script}"]\n'
            )
            variants: dict[str, Round] = {
                "bare pipelined loop": lambda qs: command_bare(script, qs, c),
                "bare loop, a call per question": lambda qs: command_calls(script, qs, c),
                "command kind": lambda qs: command_kind(config, qs, c),
            }
            compare("command", variants, n, args.rounds, c)
        if args.only in (None, "imports"):
            import_costs(max(args.rounds, 5))
        if args.only in (None, "http"):
            server = subprocess.Popen(
                [sys.executable, __file__, "--serve-http"], stdout=subprocess.PIPE, text=True
            )
            try:
                assert server.stdout is not None
                port = int(server.stdout.readline())
                url = f"http://127.0.0.1:{port}/docs/_search"
                time.sleep(0.5)  # uvicorn starts serving right after printing the port
                config.write_text(
                    f'[retrievers.search]\nkind = "http"\nurl = "{url}"\n'
                    'body = { query = { match = { text = "{question}" } }, size = "{limit}" }\n'
                    'ids = "hits.hits[*]._id"\nscores = "hits.hits[*]._score"\n'
                )
                variants = {
                    "bare aiohttp loop": lambda qs: http_bare_aiohttp(url, qs, c),
                    "bare httpx2 loop": lambda qs: http_bare_httpx2(url, qs, c),
                    "http kind": lambda qs: http_kind(config, qs, c),
                }
                compare("http", variants, n, args.rounds, c)
            finally:
                server.terminate()
                server.wait(timeout=10)


if __name__ == "__main__":
    main()
