"""Benchmark: what the pytest plugin costs a pytest run that never uses it.

The plugin loads through its ``pytest11`` entry point in every pytest run where reval is
installed, so its import must stay cheap. Timed in fresh interpreters (best of
``--repeat``): ``import pytest`` alone (the baseline, measured in the same run) and
``import pytest`` followed by the plugin; also a collection-only pytest run of an empty
test file with the plugin autoloaded and with ``-p no:reval``. Prints the CPU time of the
child process (user + system, which a busy machine disturbs far less than wall time) in
milliseconds, and the plugin's share.

    python benchmarks/bench_pytest_plugin.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path


def best_of(command: list[str], repeat: int, cwd: Path | None = None) -> float:
    """Least CPU time (user + system) of ``command`` in milliseconds."""
    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, cwd=cwd, check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        times.append(cpu * 1000)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    repeat = parser.parse_args().repeat
    python = sys.executable
    bare = best_of([python, "-c", "import pytest"], repeat)
    plugin = best_of([python, "-c", "import pytest, retrieval_eval.pytest_plugin"], repeat)
    print(f"import pytest                       {bare:8.1f} ms")
    print(
        f"import pytest + reval plugin        {plugin:8.1f} ms   (+{plugin - bare:.1f} ms, "
        f"x{plugin / bare:.3f})"
    )
    with tempfile.TemporaryDirectory() as d:
        Path(d, "test_empty.py").write_text("def test_nothing():\n    pass\n")
        base = [python, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider"]
        without = best_of([*base, "-p", "no:reval"], repeat, Path(d))
        with_plugin = best_of(base, repeat, Path(d))
    print(f"pytest --collect-only, -p no:reval  {without:8.1f} ms")
    print(
        f"pytest --collect-only, plugin on    {with_plugin:8.1f} ms   "
        f"(+{with_plugin - without:.1f} ms, x{with_plugin / without:.3f})"
    )


if __name__ == "__main__":
    main()
