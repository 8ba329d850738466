"""HTML report (``--format html``): file size and time to render, against the JSON report
of the same run (measured in the same run), for runs of 100, 1,000 and 10,000 questions.

The run is the one ``bench_ui.py`` builds (chunked rankings, misses, a few failures). The
HTML file inlines Chart.js (about 205 KiB) and everything else it needs; the JSON report
carries every raw id, the HTML only the scored distinct documents.

    python benchmarks/bench_html.py
    python benchmarks/bench_html.py --questions 1000 --repeat 9
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.run.html_view import render_html
from retrieval_eval.report.run.json_format import render_json

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ui import build_run


def median_ms(action: object, repeat: int) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        size = len(action().encode())  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[100, 1_000, 10_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'questions':>10}{'html KiB':>10}{'json KiB':>10}{'html ms':>10}{'json ms':>10}"
          f"{'size ratio':>12}{'time ratio':>12}")  # fmt: skip
    for n in args.questions:
        reports = [RunReport(build_run(n))]
        html_ms, html_size = median_ms(lambda r=reports: render_html(r), args.repeat)
        json_ms, json_size = median_ms(lambda r=reports: render_json(r), args.repeat)
        sizes = f"{html_size / 1024:>10.0f}{json_size / 1024:>10.0f}"
        times = f"{html_ms:>10.1f}{json_ms:>10.1f}"
        ratios = f"{html_size / json_size:>11.2f}x{html_ms / json_ms:>11.2f}x"
        print(f"{n:>10}{sizes}{times}{ratios}")


if __name__ == "__main__":
    main()
