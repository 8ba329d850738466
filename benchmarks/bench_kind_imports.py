"""What the framework and database kinds' libraries cost to import, which is why each is
imported only when an entry of its kind opens (never to read reval.toml or for --help).

Each figure is the median over ``--repeat`` fresh interpreters of the time ``import
MODULE`` takes inside the process and the modules it adds, with the ratio to the baseline
measured in the same run: importing what reading a reval.toml with kinds loads
(``retrieval_eval.retrievers.config`` and the kinds' registry).

    python benchmarks/bench_kind_imports.py
    python benchmarks/bench_kind_imports.py --repeat 10 --only llama_index.core
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

BASELINE = "retrieval_eval.retrievers.config, retrieval_eval.retrievers.kinds.registry"
MODULES = ("llama_index.core", "langchain_core.retrievers", "qdrant_client", "psycopg")

PROBE = """
import importlib, json, sys, time
before = len(sys.modules)
start = time.perf_counter()
for name in sys.argv[1].split(", "):
    importlib.import_module(name)
print(json.dumps([time.perf_counter() - start, len(sys.modules) - before]))
"""


def measure(modules: str, repeat: int) -> tuple[float, int]:
    """Median seconds and modules added by importing ``modules`` in a fresh process."""
    seconds: list[float] = []
    added = 0
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, modules],
            capture_output=True,
            text=True,
            check=True,
        )
        took, added = json.loads(done.stdout.strip().splitlines()[-1])
        seconds.append(took)
    return statistics.median(seconds), added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", action="append", help="a module to time (repeatable)")
    args = parser.parse_args()
    base_s, base_n = measure(BASELINE, args.repeat)
    print(f"baseline (reading reval.toml's kinds): {base_s * 1000:8.1f} ms, {base_n:5d} modules")
    for module in args.only or MODULES:
        try:
            took, added = measure(module, args.repeat)
        except subprocess.CalledProcessError:
            print(f"{module:28s} not installed")
            continue
        print(
            f"{module:28s} {took * 1000:8.1f} ms, {added:5d} modules, "
            f"{took / base_s:6.1f}x the baseline"
        )


if __name__ == "__main__":
    main()
