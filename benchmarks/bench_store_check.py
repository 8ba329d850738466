"""What the run store's integrity check costs before a process's first write to a SQLite
file: ``PRAGMA quick_check`` on a store of ``--runs`` runs (``--questions`` questions
each, built as ``bench_store.py`` builds its run).

Measured in the same rounds, their order alternated round by round (medians printed):

- ``quick_check``: the check alone, on a fresh connection (what a write pays once);
- ``integrity_check``: SQLite's full check (indexes against tables too), for comparison;
- ``first save``: ``RunStore.open`` + saving one run + close, the check included (the
  store step of ``reval eval``);
- ``list``: ``RunStore.open`` + listing the newest 50 runs + close (a read: no check).

The file grows by one run a round, negligible against ``--runs``.

    python benchmarks/bench_store_check.py                  # 1,000 runs of 23 questions
    python benchmarks/bench_store_check.py --runs 10000 --rounds 5
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_store import build_run

from retrieval_eval.records.run import RunResult
from retrieval_eval.store.store import RunStore


def fill(url: str, run: RunResult, runs: int) -> None:
    with RunStore.open(url) as store:
        for _ in range(runs):
            store.save(dataclasses.replace(run, run_id=None))


def pragma(path: Path, check: str) -> Callable[[], None]:
    def step() -> None:
        db = sqlite3.connect(path)
        try:
            assert db.execute(f"PRAGMA {check}(1)").fetchall() == [("ok",)]
        finally:
            db.close()

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--questions", type=int, default=23)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    run = build_run(args.questions)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.sqlite"
        url = f"sqlite:///{path}"
        started = time.perf_counter()
        fill(url, run, args.runs)
        size = os.path.getsize(path)
        print(f"store: {args.runs} runs of {args.questions} questions, {size / 1e6:.1f} MB "
              f"(built in {time.perf_counter() - started:.0f} s)")  # fmt: skip

        def first_save() -> None:
            with RunStore.open(url) as store:
                store.save(dataclasses.replace(run, run_id=None))

        def listing() -> None:
            with RunStore.open(url) as store:
                store.list_runs(limit=50)

        steps: dict[str, Callable[[], None]] = {
            "quick_check": pragma(path, "quick_check"),
            "integrity_check": pragma(path, "integrity_check"),
            "first save": first_save,
            "list": listing,
        }
        times: dict[str, list[float]] = {name: [] for name in steps}
        names = list(steps)
        for round_number in range(args.rounds):
            order = names if round_number % 2 == 0 else names[::-1]
            for name in order:
                begun = time.perf_counter()
                steps[name]()
                times[name].append(time.perf_counter() - begun)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"medians of {args.rounds} alternating rounds (load average {load}):")
    for name, ms in medians.items():
        print(f"  {name:16s} {ms:9.1f} ms")
    print(f"  quick_check / first save: {medians['quick_check'] / medians['first save']:.2f} "
          f"(the check's share of the store step)")  # fmt: skip
    print(f"  integrity_check / quick_check: "
          f"{medians['integrity_check'] / medians['quick_check']:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
