"""``reval quickstart`` wall time, as a newcomer meets it: a fresh process and an empty
run store (so the schema is created too), then a second run that compares.

The baseline, measured in the same run, is ``reval --version``: the bare cost of starting
the console script, which the quickstart pays as well. Figures are medians over
``--repeat`` runs, each with its own empty ``REVAL_HOME``.

    python benchmarks/bench_quickstart.py
    python benchmarks/bench_quickstart.py --repeat 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REVAL = str(Path(sys.executable).parent / "reval")


def timed(args: list[str], home: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVAL_")}
    env["REVAL_HOME"] = str(home)
    started = time.perf_counter()
    subprocess.run([REVAL, *args], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    startup, first, second = [], [], []
    for _ in range(repeat):
        home = Path(tempfile.mkdtemp(prefix="reval-bench-quickstart-"))
        try:
            startup.append(timed(["--version"], home))
            first.append(timed(["quickstart"], home))
            second.append(timed(["quickstart"], home))
        finally:
            shutil.rmtree(home, ignore_errors=True)
    base = statistics.median(startup)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {repeat} repeats")
    print(f"reval --version (baseline)        {base:6.2f} s")
    for label, values in (("first quickstart (empty store)", first), ("second (compares)", second)):
        median = statistics.median(values)
        print(f"{label:33} {median:6.2f} s   {median / base:5.1f}x baseline")


if __name__ == "__main__":
    main()
