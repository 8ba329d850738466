"""runs compare: time to compare three runs of one set, against the two-run regression
judgement of the same runs measured in the same process.

The runs are ``bench_store.py``'s (chunked rankings, hits, a few failures), the second
and third with every 20th / 7th answered question flipped. The baseline is ``judge``
run on each non-reference run (deltas, flips and the McNemar tests: what a two-run
comparison always cost); the ratio says what the many-run comparison adds on top
(the seeded paired bootstrap of every metric, Holm, rank overlap, the question grid).

    python benchmarks/bench_compare.py                  # 2,000 questions
    python benchmarks/bench_compare.py --questions 10000 --resamples 500
"""

from __future__ import annotations

import argparse
import time

from bench_reports import flipped_copy
from bench_store import build_run

from retrieval_eval.comparison.compare import compare_runs
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.stats.many_runs import DEFAULT_RESAMPLES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
    args = parser.parse_args()
    reference = build_run(args.questions)
    runs = [reference, flipped_copy(reference, 20), flipped_copy(reference, 7)]
    runs = [r.__class__(**{**_fields(r), "run_id": f"run{i}"}) for i, r in enumerate(runs)]

    start = time.perf_counter()
    for run in runs[1:]:
        judge(run, reference, Thresholds())
    baseline = time.perf_counter() - start

    start = time.perf_counter()
    comparison = compare_runs(runs, resamples=args.resamples)
    elapsed = time.perf_counter() - start

    print(f"questions                 {args.questions:>10,}")
    print(f"metrics compared          {len(comparison.metric_names):>10}")
    print(f"bootstrap resamples       {args.resamples:>10,}")
    print(f"baseline: judge x2        {baseline:>10.2f} s")
    print(f"compare_runs (3 runs)     {elapsed:>10.2f} s")
    print(f"ratio                     {elapsed / baseline:>10.1f} x")


def _fields(run: object) -> dict[str, object]:
    return {name: getattr(run, name) for name in run.__dataclass_fields__}  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
