"""Reports: time and output size to render a run of 100,000 questions in every format.

The run is the one ``bench_store.py`` builds (chunked rankings, hits, latency, a few
failures), judged against a copy of itself with 2% of the questions flipped so that the
verdict carries flips and deltas. The baseline, measured in the same run, is the
standard library's ``json.dumps`` of the bare per-question records (id, distinct ranking,
hits, latency): what any report has to serialise at least. Each format is rendered
once; the ratio says how much the report layer costs on top of that floor.

    python benchmarks/bench_reports.py                 # 100,000 questions
    python benchmarks/bench_reports.py --questions 20000
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
import tracemalloc
from collections.abc import Callable

from bench_store import build_run

from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import RunReport, Thresholds
from retrieval_eval.report.run.json_format import render_json
from retrieval_eval.report.run.junit import render_junit
from retrieval_eval.report.run.markdown import render_markdown
from retrieval_eval.report.run.text import render_text
from retrieval_eval.report.run.trec import qrels_lines, run_lines


def flipped_copy(run: RunResult, every: int) -> RunResult:
    """The run with every ``every``-th answered question's hits inverted: a baseline."""
    questions = tuple(
        dataclasses.replace(q, hits={k: not h for k, h in q.hits.items()})
        if i % every == 0 and q.answered else q
        for i, q in enumerate(run.questions)
    )  # fmt: skip
    return dataclasses.replace(run, questions=questions, run_id="baseline")


def measure(render: Callable[[], str]) -> tuple[float, int, float]:
    """Seconds, characters, and peak traced memory in MiB (second, traced pass)."""
    started = time.perf_counter()
    size = len(render())
    seconds = time.perf_counter() - started
    tracemalloc.start()
    render()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, size, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    args = parser.parse_args()
    run = dataclasses.replace(build_run(args.questions), run_id="current")
    verdict = judge(run, flipped_copy(run, 50), Thresholds())
    reports = [RunReport(run, verdict)]
    print(f"{args.questions:,} questions; verdict {verdict.kind.value} with "
          f"{len(verdict.flips):,} flips")  # fmt: skip

    def floor() -> str:
        return json.dumps([
            [q.question_id, list(q.ranked_document_ids), q.top1_hit, q.top3_hit, q.latency_ms]
            for q in run.questions
        ])  # fmt: skip

    formats: dict[str, Callable[[], str]] = {
        "baseline json.dumps": floor,
        "json": lambda: render_json(reports),
        "junit": lambda: render_junit(reports),
        "text": lambda: render_text(reports, width=120),
        "markdown": lambda: render_markdown(reports),
        "trec run+qrels": lambda: "\n".join([*run_lines(run), *qrels_lines(run)]),
    }
    base_seconds = None
    print(f"{'format':<22}{'seconds':>9}{'MiB out':>9}{'peak MiB':>10}{'x baseline':>12}")
    for name, render in formats.items():
        seconds, size, peak = measure(render)
        base_seconds = base_seconds or seconds
        print(f"{name:<22}{seconds:>9.2f}{size / 2**20:>9.1f}{peak:>10.1f}"
              f"{seconds / base_seconds:>12.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
