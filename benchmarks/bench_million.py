"""A million questions: ``reval eval`` end to end against a trivial retriever.

Writes a JSONL set of ``--questions`` questions and runs the installed ``reval eval`` as a
subprocess, as CI would, against a trivial retriever (12 chunk ids of 6 of 1,000
documents per question, answered at once): by default an in-process plugin registered
for the run through a dist-info folder on PYTHONPATH (so the figures are reval's own),
with ``--grpc`` the trivial server of ``bench_coordinator.py`` in its own process
(adding the gRPC client's cost per call). ``reval eval`` runs
saving to a fresh SQLite file, the JSON report to a file, the text report to a file.
Printed: wall time and throughput, peak RSS of the ``reval`` process (ru_maxrss from
wait4), the sizes of the text and JSON reports. Then, in this process, the stored run
is reloaded from SQLite (``RunStore.get``), saved to and reloaded from PostgreSQL when
``--postgres URL`` is given, and saved again to a fresh SQLite file: each step timed.

The baseline, measured in the same run, is the same evaluation at ``--baseline-questions``
(default a tenth): memory should grow with the questions only by what is kept per
question, time linearly.

    python benchmarks/bench_million.py                           # 1,000,000 questions
    python benchmarks/bench_million.py --questions 20000 --grpc --postgres postgresql+psycopg://...
    python benchmarks/bench_million.py --questions 100000 --graded   # judgments instead of lists
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from retrieval_eval.store.store import RunStore

HERE = Path(__file__).resolve().parent
REVAL = Path(sys.executable).parent / "reval"
PLUGIN = "bench-trivial"
PLUGIN_MODULE = """
from retrieval_eval.retrievers.protocol import RetrieverDescription


class Trivial:
    async def retrieve(self, question, limit):
        n = int(question.rsplit(" ", 1)[-1])
        return [f"doc{(n + i // 2) % 1000}#{i % 2}" for i in range(limit)]

    def describe(self):
        return RetrieverDescription("trivial", "1", chunk_separator="#")


def create(argument):
    return Trivial()
"""


def install_plugin(where: Path) -> dict[str, str]:
    """The environment under which ``reval`` finds the ``bench-trivial`` retriever."""
    where.mkdir()
    (where / "reval_bench_trivial.py").write_text(PLUGIN_MODULE)
    info = where / "reval_bench_trivial-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: reval-bench-trivial\n"
                                   "Version: 0.1.0\n")  # fmt: skip
    (info / "entry_points.txt").write_text(
        f"[retrieval_eval.retrievers]\n{PLUGIN} = reval_bench_trivial:create\n"
    )
    path = os.pathsep.join(filter(None, [str(where), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path}


def write_set(path: Path, n: int, graded: bool = False) -> None:
    """One expected document a question; ``graded``: as judgments instead, grade 2, beside
    a second document judged not relevant (what an imported TREC or BEIR set holds)."""
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            expected = f"doc{(i + 1) % 1000}"
            labels = (
                f'"judgments": {{"{expected}": 2, "doc{(i + 7) % 1000}": 0}}'
                if graded
                else f'"expected_document_ids": ["{expected}"]'
            )
            f.write(f'{{"id": "q{i}", "question": "question {i}", "form": "MATCH", {labels}}}\n')


def start_server() -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, str(HERE / "bench_coordinator.py"), "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    port = server.stdout.readline().strip()
    if not port.isdigit():
        raise SystemExit("the benchmark server did not start (see its error above)")
    return server, f"grpc://127.0.0.1:{port}"


def run_reval(args: list[str], stdout: Path, extra_env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one ``reval`` subprocess; exits on failure."""
    env = {**os.environ, "CI": "1", "NO_COLOR": "1", **extra_env}
    started = time.perf_counter()
    with stdout.open("w") as out:
        process = subprocess.Popen([str(REVAL), *args], stdout=out, env=env)
        _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"reval {' '.join(args)} exited {process.returncode}")
    return elapsed, usage.ru_maxrss / 1024


def evaluate(
    n: int, target: str, tmp: Path, concurrency: int, env: dict[str, str], graded: bool = False
) -> dict[str, float | str]:
    set_path = tmp / f"set-{n}.jsonl"
    write_set(set_path, n, graded)
    db = f"sqlite:///{tmp / f'runs-{n}.sqlite'}"
    json_path, text_path = tmp / f"report-{n}.json", tmp / f"report-{n}.txt"
    elapsed, rss = run_reval(
        ["eval", "--set", str(set_path), "--retriever", target, "--db", db,
         "--concurrency", str(concurrency), "--format", "json", "--output", str(json_path)],
        text_path, env,
    )  # fmt: skip
    with json_path.open() as f:
        (run,) = json.load(f)["runs"]
    if run["state"] != "complete" or len(run["questions"]) != n:
        raise SystemExit(f"the {n}-question run went wrong: {run['state']}")
    return {
        "seconds": elapsed,
        "rss_mib": rss,
        "text_lines": sum(1 for _ in text_path.open()),
        "json_mib": json_path.stat().st_size / 2**20,
        "run_id": run["run_id"],
        "db": db,
    }


def timed(step):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = step()
    return time.perf_counter() - started, result


def store_steps(db: str, run_id: str, postgres: str | None, tmp: Path) -> list[tuple[str, float]]:
    with RunStore.open(db) as store:
        seconds, run = timed(lambda: store.get(run_id))
    steps = [("reload from SQLite (RunStore.get)", seconds)]
    with RunStore.open(f"sqlite:///{tmp / 'copy.sqlite'}") as store:
        steps.append(("save to a fresh SQLite (RunStore.save)", timed(lambda: store.save(run))[0]))
    if postgres:
        with RunStore.open(postgres) as store:
            seconds, pg_id = timed(lambda: store.save(run))
            steps.append(("save to PostgreSQL (RunStore.save)", seconds))
            steps.append(
                ("reload from PostgreSQL (RunStore.get)", timed(lambda: store.get(pg_id))[0])
            )
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1_000_000)
    parser.add_argument("--baseline-questions", type=int, help="default: a tenth")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--postgres", help="a PostgreSQL URL to time save and reload on too")
    parser.add_argument("--grpc", action="store_true", help="the retriever over gRPC")
    parser.add_argument("--graded", action="store_true", help="judgments instead of id lists")
    args = parser.parse_args()
    sizes = [args.baseline_questions or max(1, args.questions // 10), args.questions]
    print(f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f} · "
          f"concurrency {args.concurrency} · retriever "
          f"{'over gRPC' if args.grpc else 'in-process'}")  # fmt: skip
    server = None
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            env: dict[str, str] = {}
            if args.grpc:
                server, target = start_server()
            else:
                env, target = install_plugin(tmp / "plugin"), PLUGIN
            figures = [evaluate(n, target, tmp, args.concurrency, env, args.graded) for n in sizes]
            print(f"{'questions':>10} {'seconds':>9} {'q/s':>7} {'peak RSS MiB':>13} "
                  f"{'KiB/question':>13} {'text lines':>11} {'JSON MiB':>9}")  # fmt: skip
            for n, f in zip(sizes, figures, strict=True):
                per_q = float(f["rss_mib"]) * 1024 / n
                print(f"{n:>10,} {f['seconds']:>9.1f} {n / float(f['seconds']):>7,.0f} "
                      f"{f['rss_mib']:>13,.0f} {per_q:>13.2f} {f['text_lines']:>11,} "
                      f"{f['json_mib']:>9.1f}")  # fmt: skip
            big, small = figures[1], figures[0]
            time_ratio = float(big["seconds"]) / float(small["seconds"])
            rss_ratio = float(big["rss_mib"]) / float(small["rss_mib"])
            print(f"ratio {sizes[1] / sizes[0]:g}x the questions: {time_ratio:.1f}x the time, "
                  f"{rss_ratio:.1f}x the peak RSS")  # fmt: skip
            per_question = (
                (float(big["rss_mib"]) - float(small["rss_mib"])) * 2**20 / (sizes[1] - sizes[0])
            )
            print(f"peak RSS per added question (the two runs' difference): "
                  f"{per_question:,.0f} bytes")  # fmt: skip
            print(f"store, {sizes[1]:,} questions, in this process:")
            for name, seconds in store_steps(
                str(big["db"]), str(big["run_id"]), args.postgres, tmp
            ):
                print(f"  {name:<42}{seconds:>8.1f} s")
            own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"  (peak RSS of this process, JSON report parsed too: {own:,.0f} MiB)")
    finally:
        if server is not None:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(10)


if __name__ == "__main__":
    main()
