"""``reval ui``: start-up time, and page times for the runs list, a run and a history, on
stores of 100 and of 10,000 runs.

Each store (a fresh SQLite file, or ``--db`` PostgreSQL) is filled through
``RunStore.save`` with judged runs of ``--questions`` questions spread over 5 sets x 4
retrievers, so a history holds 1/20 of the runs. The viewer runs in this process under
uvicorn on a free loopback port and each page is fetched over HTTP ``--repeat`` times
(median). Baselines measured in the same run: the store call each page makes, alone
(``list_runs``, ``get_stored``, ``history`` of the stored figures, and with every shown
run's outcomes for the page's flaky questions, asked for with ``&questions=1``), so the
ratio is what serving and rendering add; and the viewer's smallest response (the
stylesheet) for the HTTP stack itself.
Start-up is the wall time from launching ``reval ui --address 127.0.0.1:0`` to its first
answered page, against ``reval runs list --limit 1`` on the same store (the CLI's own
start-up: interpreter, SQLAlchemy, opening the store), as wall time and as CPU time (on
a shared machine the CPU time is the steadier figure).

    nice -n 10 python benchmarks/bench_ui.py                 # 100 and 10,000 runs
    python benchmarks/bench_ui.py --runs 100 --repeat 5      # quicker
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import uvicorn

from retrieval_eval.evaluation.latency import run_latency
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.failures import RetrievalFailure
from retrieval_eval.records.outcome import Form
from retrieval_eval.records.parameters import RunParameters
from retrieval_eval.records.run import RetrieverDescription, RunResult, RunState
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.scoring.metrics import breakdowns, summarize
from retrieval_eval.scoring.protocol import score_question
from retrieval_eval.store.store import RunStore
from retrieval_eval.web.app import create_app


def build_run(n: int) -> RunResult:
    """A run of ``n`` questions with chunked rankings, misses and a few failures."""
    p = RunParameters(doc_id_separator="#")
    outcomes = []
    for i in range(n):
        q = GoldenQuestion(
            f"q{i:05d}", f"question {i}", (Form.MATCH, Form.GAP)[i % 2], (f"doc{i % 500}",),
            hard_class=("near-duplicate", None)[i % 3 > 0],
        )  # fmt: skip
        failure = RetrievalFailure("timeout", "deadline exceeded") if i % 97 == 0 else None
        items = None if failure else [
            RetrievedItem(f"doc{(i + j // 2 + i % 4) % 500}#{j % 2}") for j in range(p.limit)
        ]  # fmt: skip
        outcomes.append(score_question(q, items, ks=p.ks, limit=p.limit, separator="#",
                                       latency_ms=3 + (i % 89) / 7, error=failure))  # fmt: skip
    by_form, by_class = breakdowns(outcomes, p.ks)
    start = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    return RunResult(
        set_name="bench", set_fingerprint="sha256:bench", retriever_target="grpc://127.0.0.1:1",
        retriever=RetrieverDescription("bm25", "1.0", chunk_separator="#"), parameters=p,
        started_at=start, finished_at=start + timedelta(minutes=1),
        state=RunState.INCOMPLETE, metrics=summarize(outcomes, p.ks), by_form=by_form,
        by_hard_class=by_class, latency=run_latency(outcomes), questions=tuple(outcomes),
    )  # fmt: skip


SETS = [f"set-{i}" for i in range(5)]
RETRIEVERS = [f"retriever-{i}" for i in range(4)]
REVAL = Path(sys.executable).parent / "reval"


def fill(store: RunStore, runs: int, questions: int) -> None:
    """``runs`` judged runs, oldest first; each one's baseline is the previous run of its
    set x retriever (as ``reval eval`` would find it)."""
    template = build_run(questions)
    previous: dict[tuple[str, str], object] = {}
    for i in range(runs):
        key = (SETS[i % len(SETS)], RETRIEVERS[(i // len(SETS)) % len(RETRIEVERS)])
        run = replace(
            template,
            set_name=key[0],
            retriever=RetrieverDescription(key[1], "1.0", chunk_separator="#"),
            started_at=template.started_at + timedelta(minutes=i),
            finished_at=template.finished_at + timedelta(minutes=i),
            labels={"batch": str(i % 7)},
        )
        verdict = judge(run, previous.get(key), Thresholds())  # type: ignore[arg-type]
        store.save(run, verdict)
        previous[key] = run


@contextmanager
def serving(store: RunStore) -> Iterator[int]:
    server = uvicorn.Server(
        uvicorn.Config(create_app(store), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def alternated_ms(
    first: Callable[[], object], second: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """Median milliseconds of each of two actions, timed in turn round by round (which
    goes first alternating too), so that the machine's load drifts over both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for round_ in range(repeat):
        order = ((0, first), (1, second)) if round_ % 2 == 0 else ((1, second), (0, first))
        for side, action in order:
            started = time.perf_counter()
            action()
            times[side].append((time.perf_counter() - started) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


def fetcher(port: int) -> Callable[[str], Callable[[], int]]:
    """A GET of ``path`` on a fresh connection (as a browser opening a page would)."""

    def get(path: str) -> Callable[[], int]:
        def action() -> int:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                body = response.read()
            finally:
                conn.close()
            assert response.status == 200, (path, response.status, body[:200])
            return len(body)

        return action

    return get


def measure(store: RunStore, repeat: int) -> list[tuple[str, float, float, int]]:
    newest = store.list_runs(limit=1)[0]
    set_name, retriever = newest.set_name, newest.retriever_identifier
    with serving(store) as port:
        get = fetcher(port)
        rows = []
        pages = [
            ("runs list (50)", "/", lambda: store.list_runs(limit=50)),
            (f"run ({newest.question_count} q)", f"/runs/{newest.run_id}",
             lambda: store.get_stored(newest.run_id)),
            ("history (<=20 runs)", f"/history?set={set_name}&retriever={retriever}",
             lambda: store.history(set_name, retriever, limit=20, outcomes=False)),
            ("history + questions", f"/history?set={set_name}&retriever={retriever}"
             "&questions=1", lambda: store.history(set_name, retriever, limit=20)),
            ("stylesheet (HTTP only)", "/assets/reval.css", lambda: None),
        ]  # fmt: skip
        for name, path, store_call in pages:
            size = get(path)()  # warm caches once
            page_ms, store_ms = alternated_ms(get(path), store_call, repeat)
            rows.append((name, page_ms, store_ms, size))
    return rows


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds a live process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def startup_s(db: str) -> tuple[float, float, float, float]:
    """(wall, CPU) seconds to the first page of ``reval ui``, and of ``reval runs list``.
    CPU time is what start-up costs on a busy machine too (wall time includes waiting)."""
    started, cpu = time.perf_counter(), _children_cpu_s()
    subprocess.run([str(REVAL), "runs", "list", "--limit", "1", "--db", db],
                   check=True, capture_output=True)  # fmt: skip
    list_s, list_cpu = time.perf_counter() - started, _children_cpu_s() - cpu
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(REVAL), "ui", "--address", "127.0.0.1:0", "--db", db],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(re.findall(r":(\d+)/", process.stdout.readline())[-1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/")
        assert conn.getresponse().status == 200
        return time.perf_counter() - started, _cpu_s(process.pid), list_s, list_cpu
    finally:
        process.terminate()
        process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[100, 10_000])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--db", help="PostgreSQL URL of an EMPTY database (default: SQLite)")
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="Keep the SQLite stores in DIR and reuse them when run again (filling 10,000 "
        "runs takes minutes)",
    )
    args = parser.parse_args()
    results: dict[int, list[tuple[str, float, float, int]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for count in args.runs:
            url = args.db or f"sqlite:///{folder / f'runs-{count}-{args.questions}q.sqlite'}"
            with RunStore.open(url) as store:
                have = len(store.list_runs(limit=None))
                if have not in (0, count):
                    raise SystemExit(f"{url} holds {have} runs, not 0 or {count}")
                if have == 0:
                    started = time.perf_counter()
                    fill(store, count, args.questions)
                    took = time.perf_counter() - started
                    print(f"filled {count} runs in {took:.1f} s", flush=True)
                results[count] = measure(store, args.repeat)
            if count == args.runs[-1]:
                up, up_cpu, version, version_cpu = startup_s(url)
                print(f"start-up to first page: {up:.2f} s, {up_cpu:.2f} s CPU (reval runs "
                      f"list --limit 1: {version:.2f} s, {version_cpu:.2f} s CPU; ratio "
                      f"{up / version:.1f}x, CPU {up_cpu / version_cpu:.1f}x)")  # fmt: skip
    print(f"\n{'page':<24}{'runs':>8}{'page ms':>10}{'store ms':>10}{'ratio':>8}{'bytes':>10}")
    for count, rows in results.items():
        for name, page_ms, store_ms, size in rows:
            ratio = f"{page_ms / store_ms:.1f}x" if store_ms > 0.01 else "-"
            print(f"{name:<24}{count:>8}{page_ms:>10.1f}{store_ms:>10.1f}{ratio:>8}{size:>10}")
    if len(results) > 1:
        small, large = results[min(results)], results[max(results)]
        for (name, a, _, _), (_, b, _, _) in zip(small, large, strict=True):
            print(f"{name}: {max(results)} runs vs {min(results)}: {b / a:.2f}x")


if __name__ == "__main__":
    main()
