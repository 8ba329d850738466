"""Decompression bombs against ``reval sets validate``: wall time and peak memory.

Each case is a small gzip file; the installed ``reval`` runs in a subprocess and its
peak RSS is read from ``wait4``. Cases: a YAML set whose text is past the 256 MiB
document limit; a JSONL set with one line of ``--line-mib`` MiB (the reader stops at
the 8 MiB line limit); a JSONL set of blank lines past the 1 GiB limit; and the same
blank lines within the limit followed by one question (read to the end). The baseline,
measured in the same run, is validating a one-question set: start-up time and memory.

    python benchmarks/bench_bombs.py [--line-mib 2048]
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REVAL = Path(sys.executable).parent / "reval"
MiB = 1024 * 1024
QUESTION = b'{"id": "q1", "question": "Where?", "form": "MATCH", "expected_document_ids": ["d1"]}\n'


def write(path: Path, *pieces: tuple[bytes, int]) -> Path:
    with gzip.open(path, "wb", compresslevel=9) as f:
        for block, times in pieces:
            for _ in range(times):
                f.write(block)
    return path


def measure(path: Path) -> tuple[float, float, int]:
    """Seconds, peak RSS in MiB and exit code of ``reval sets validate path``."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(REVAL), "sets", "validate", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - started, usage.ru_maxrss / 1024, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--line-mib", type=int, default=2048)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        yaml_block = b"- {id: x, question: y, expected_document_ids: [z]}\n" * 20_000
        cases = {
            "baseline: one question": write(work / "one.jsonl.gz", (QUESTION, 1)),
            "YAML past 256 MiB": write(work / "bomb.yaml.gz", (yaml_block, 300)),
            f"JSONL, one {args.line_mib} MiB line": write(
                work / "line.jsonl.gz", (b'{"id": "', 1), (b"a" * MiB, args.line_mib)
            ),
            "JSONL, 1.1 GiB of blank lines": write(work / "blank.jsonl.gz", (b"\n" * MiB, 1100)),
            "JSONL, 1000 MiB of blank lines + 1 question": write(
                work / "sparse.jsonl.gz", (b"\n" * MiB, 1000), (QUESTION, 1)
            ),
        }
        base_s, base_mib, _ = measure(cases["baseline: one question"])
        print(f"{'case':44} {'gz KiB':>8} {'seconds':>8} {'x base':>7} {'peak MiB':>9} exit")
        for name, path in cases.items():
            seconds, mib, code = measure(path)
            size = path.stat().st_size / 1024
            print(
                f"{name:44} {size:8.0f} {seconds:8.2f} {seconds / base_s:7.1f} {mib:9.0f} {code:4}"
            )
        print(f"(baseline peak {base_mib:.0f} MiB)")


if __name__ == "__main__":
    main()
