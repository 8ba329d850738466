"""Where a ``reval`` command's memory peaks: RSS sampled over time, by phase.

Runs ``reval ARGS`` in this process while a thread reads the resident set size every
5 ms together with the main thread's stack; a sample's phase is the chain of the known
steps on that stack (reading the set, checking it, the fingerprint, evaluating,
aggregating, the latency summary, saving, the JSON and text reports). Printed on stderr
after the command: for each phase its time span, the RSS when it started and its
highest RSS, then the stack at the overall peak.

    python benchmarks/rss_phases.py eval --set big.jsonl --retriever bench-trivial \\
        --db sqlite:///runs.sqlite --format json --output report.json > report.txt

(``bench_million.py`` writes such a set and registers the ``bench-trivial`` retriever;
sampling costs some CPU, so read the times as rough.)
"""

from __future__ import annotations

import os
import resource
import sys
import threading
import time
import traceback
from types import FrameType

STEPS = (
    "load_sets", "read_set_file", "check_raw_set", "label_fingerprint", "open_store_or_url",
    "_evaluate", "result", "summarize_with_breakdowns", "run_latency", "judge_and_save",
    "judge", "save", "insert_run", "outcome_rows", "insert_rows", "emit_report",
    "write_json", "render_text",
)  # fmt: skip
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def phase(frame: FrameType | None) -> str:
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return ">".join(n for n in reversed(names) if n in STEPS) or "-"


class Sampler(threading.Thread):
    def __init__(self, main: int) -> None:
        super().__init__(daemon=True)
        self.main, self.running = main, True
        self.samples: list[tuple[float, int, str]] = []
        self.peak, self.peak_stack = 0, ""

    def run(self) -> None:
        started = time.perf_counter()
        while self.running:
            frame = sys._current_frames().get(self.main)
            now = rss()
            self.samples.append((time.perf_counter() - started, now, phase(frame)))
            if now > self.peak and frame is not None:
                self.peak = now
                self.peak_stack = "".join(traceback.format_stack(frame)[-8:])
            time.sleep(0.005)

    def report(self) -> None:
        spans: dict[str, list[float]] = {}
        for at, now, name in self.samples:
            span = spans.setdefault(name, [at, at, now, now])
            span[1], span[3] = at, max(span[3], now)
        mib = 2**20
        print(f"peak RSS {self.peak / mib:,.0f} MiB (ru_maxrss "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB)",
              file=sys.stderr)  # fmt: skip
        for name, (start, end, first, top) in spans.items():
            print(f"{start:8.1f} -{end:8.1f} s  from {first / mib:6,.0f}  peak "
                  f"{top / mib:6,.0f} MiB  {name}", file=sys.stderr)  # fmt: skip
        print("stack at the peak:\n" + self.peak_stack, file=sys.stderr)


def main() -> None:
    sampler = Sampler(threading.get_ident())
    sampler.start()
    from retrieval_eval.cli.main import main as reval

    code: object = 0
    try:
        code = reval(sys.argv[1:])
    except SystemExit as e:
        code = e.code
    finally:
        sampler.running = False
        sampler.join()
        sampler.report()
    raise SystemExit(code)


if __name__ == "__main__":
    main()
