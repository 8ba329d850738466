"""Scoring: reval vs pytrec_eval, ranx and ir-measures on one workload, side by side.

``--questions`` questions (default 100,000) with 1-3 relevant documents each, every one
answered by ``--depth`` (default 100) distinct documents of a 50,000-document corpus,
relevant ones placed at seeded random ranks (or missing). Each library gets the input in
its own natural form, built before the clock starts: reval a ``Ranking`` per question (as
the coordinator hands it over), the others TREC-style ``{qid: {doc: score}}`` dicts.

Timed, per library, CPU time of this process (all threads) and wall time:

- reval: the whole of its scoring: the contract check, the distinct-document collapse, hits
  at every k, MRR@k/recall@k/nDCG@k, Wilson intervals, and the breakdowns by form and by
  hard class, keeping every per-question outcome the reports and the store need;
- pytrec_eval: ``RelevanceEvaluator`` (qrels parsed) and ``evaluate`` of success@k,
  recall@k, ndcg_cut@k and recip_rank, then the mean of each (what reval reports overall);
- ranx: ``Qrels``/``Run`` from the dicts and ``evaluate`` of the same measures (numba
  compiles on a small warm-up first, outside the clock);
- ir-measures: ``calc_aggregate`` of the same measures (pytrec_eval underneath).

The figures must agree to 6 decimals (reval's ``mrr@depth`` is trec_eval's ``recip_rank``
over the whole ranking); the benchmark stops if they do not. Rounds alternate the order of
the libraries; the median round is printed with ratios to pytrec_eval measured in the same
run, and the load average beside them (the machine may be shared: compare ratios and CPU
time, not wall time across runs).

With ``--graded`` the workload's judgments are graded (relevant documents 1-3, and a few
judged not relevant) and the race is the IR measures (``scoring.measures``: P@k, R@k, AP,
Rprec, Bpref, RR, graded nDCG@k, at ``--ks``) against pytrec_eval computing the same
trec_eval measures; the means must agree to 6 decimals.

    python benchmarks/bench_scoring.py --questions 100000 --depth 100 --rounds 3  # README
    python benchmarks/bench_scoring.py --questions 20000 --rounds 1
    python benchmarks/bench_scoring.py --graded --ks 1,3,10,100 --rounds 1
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.scoring.protocol import normalize_ks
from retrieval_eval.scoring.run import RunScorer
from retrieval_eval.scoring.tally import Tally

CORPUS = 50_000
CLASSES = ("near-duplicate", "specific-vs-general", "prose-free", None)

Workload = tuple[list[GoldenQuestion], list[Ranking], dict[str, dict[str, int]],
                 dict[str, dict[str, float]]]  # fmt: skip


def workload(n: int, depth: int, seed: int = 7) -> Workload:
    rng = random.Random(seed)
    questions: list[GoldenQuestion] = []
    rankings: list[Ranking] = []
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    docs = [f"doc{i}" for i in range(CORPUS)]
    for i in range(n):
        qid = f"q{i}"
        ranked = rng.sample(docs, depth)
        relevant = rng.sample(docs, rng.randint(1, 3))
        for doc in relevant:  # most relevant documents are found, at a random rank
            if rng.random() < 0.7 and doc not in ranked:
                ranked[rng.randrange(depth)] = doc
        form = Form.MATCH if i % 2 else Form.GAP
        questions.append(GoldenQuestion(qid, f"question {i}", form, tuple(relevant),
                                        CLASSES[i % len(CLASSES)]))  # fmt: skip
        rankings.append(Ranking(tuple(ranked)))
        qrels[qid] = dict.fromkeys(relevant, 1)
        run[qid] = {doc: float(depth - rank) for rank, doc in enumerate(ranked)}
    return questions, rankings, qrels, run


def graded_workload(n: int, depth: int, seed: int = 7) -> Workload:
    """``workload`` with grades: each relevant document graded 1-3, and two documents of
    the ranking judged not relevant (grade 0)."""
    rng = random.Random(seed)
    questions, rankings, qrels, run = workload(n, depth, seed)
    graded = []
    for q, ranking in zip(questions, rankings, strict=True):
        grades = {doc: rng.randint(1, 3) for doc in q.expected_document_ids}
        for doc in rng.sample(ranking.document_ids, 2):
            grades.setdefault(doc, 0)
        qrels[q.id] = grades
        graded.append(GoldenQuestion(q.id, q.question, q.form, q.expected_document_ids,
                                     q.hard_class, None, tuple(grades.items())))  # fmt: skip
    return graded, rankings, qrels, run


def _graded_names(ks: tuple[int, ...]) -> dict[str, str]:
    """Each ir_measures name and trec_eval's for the same measure."""
    names = {"AP": "map", "Rprec": "Rprec", "Bpref": "bpref", "RR": "recip_rank"}
    for k in ks:
        names.update({f"P@{k}": f"P_{k}", f"R@{k}": f"recall_{k}", f"nDCG@{k}": f"ndcg_cut_{k}"})
    return names


def reval_measures(data: Workload, ks: tuple[int, ...], depth: int) -> dict[str, float]:
    """The IR measures as ``reval eval --measures`` computes them (``run_measures``): each
    answer's distinct documents (its outcome, built before the clock as pytrec_eval's run
    dict is) against its question's grades, then the means."""
    from retrieval_eval.scoring.measures import parse_measures, run_measures

    questions, outcomes = data[0], _OUTCOMES[id(data)]
    measures = parse_measures(",".join(_graded_names(ks)))
    means = run_measures(outcomes, questions, measures, trec_means=True)
    return {name: m.value or 0.0 for name, m in means.items()}


#: Each graded workload's outcomes, scored by the protocol when the workload is made.
_OUTCOMES: dict[int, list[Any]] = {}


def scored(data: Workload, ks: tuple[int, ...], depth: int) -> Workload:
    from retrieval_eval.scoring.protocol import score_question

    questions, rankings = data[0], data[1]
    _OUTCOMES[id(data)] = [
        score_question(q, r, ks=ks, limit=depth, separator="", latency_ms=1.0, error=None)
        for q, r in zip(questions, rankings, strict=True)
    ]
    return data


def pytrec_measures(data: Workload, ks: tuple[int, ...], depth: int) -> dict[str, float]:
    import pytrec_eval

    _, _, qrels, run = data
    names = _graded_names(ks)
    cut = ",".join(map(str, ks))
    asked = {"map", "Rprec", "bpref", "recip_rank", f"P.{cut}", f"recall.{cut}", f"ndcg_cut.{cut}"}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, asked).evaluate(run)
    return {ours: statistics.fmean(q[theirs] for q in per_query.values())
            for ours, theirs in names.items()}  # fmt: skip


def reval_scoring(data: Workload, ks: tuple[int, ...], depth: int) -> dict[str, float]:
    """What ``reval eval`` does with each answer as it arrives (``RunAccumulator.record``):
    ``RunScorer.score`` (the contract check, not skipped, then the protocol) and the
    outcome's row counted in the run's ``Tally``; then the run's metrics and breakdowns."""
    questions, rankings, _, _ = data
    ks = normalize_ks(ks)
    scorer = RunScorer(ks, depth, "")
    tally = Tally((), ks)
    outcomes = []
    for q, ranking in zip(questions, rankings, strict=True):
        outcome, key = scorer.score(q, ranking, None, 1.0)
        outcomes.append(outcome)
        tally.add(q.form, q.hard_class, key)
    overall, by_form, by_class = tally.overall(), tally.by_form(), tally.by_class()
    if len(outcomes) != len(questions) or not by_form or not by_class:
        raise SystemExit("reval lost outcomes or breakdowns")
    return {**overall.values}


def _trec_measures(ks: tuple[int, ...]) -> set[str]:
    cut = ",".join(map(str, ks))
    return {f"success.{cut}", f"recall.{cut}", f"ndcg_cut.{cut}", "recip_rank"}


def pytrec_scoring(data: Workload, ks: tuple[int, ...], depth: int) -> dict[str, float]:
    import pytrec_eval

    _, _, qrels, run = data
    per_query = pytrec_eval.RelevanceEvaluator(qrels, _trec_measures(ks)).evaluate(run)
    names = next(iter(per_query.values())).keys()
    return {name: statistics.fmean(q[name] for q in per_query.values()) for name in names}


def _ranx_metrics(ks: tuple[int, ...], depth: int) -> list[str]:
    return [f"{m}@{k}" for k in ks for m in ("hit_rate", "recall", "ndcg")] + [f"mrr@{depth}"]


def ranx_scoring(data: Workload, ks: tuple[int, ...], depth: int) -> dict[str, float]:
    from ranx import Qrels, Run, evaluate

    _, _, qrels, run = data
    values = evaluate(Qrels.from_dict(qrels), Run.from_dict(run), _ranx_metrics(ks, depth))
    return {name: float(v) for name, v in values.items()}


def ir_measures_scoring(data: Workload, ks: tuple[int, ...], depth: int) -> dict[str, float]:
    import ir_measures
    from ir_measures import RR, R, Success, nDCG

    _, _, qrels, run = data
    measures = [m @ k for k in ks for m in (Success, R, nDCG)] + [RR]
    values = ir_measures.calc_aggregate(measures, qrels, run)
    return {str(m): float(v) for m, v in values.items()}


def reference_names(ks: tuple[int, ...], depth: int) -> dict[str, dict[str, str]]:
    """reval's name -> each library's name for the same figure."""
    names: dict[str, dict[str, str]] = {}
    for k in ks:
        hit = "top1_hit_rate" if k == 1 else "top3_hit_rate" if k == 3 else f"hit_rate@{k}"
        names[hit] = {"pytrec_eval": f"success_{k}", "ranx": f"hit_rate@{k}",
                      "ir-measures": f"Success@{k}"}  # fmt: skip
        names[f"recall@{k}"] = {"pytrec_eval": f"recall_{k}", "ranx": f"recall@{k}",
                                "ir-measures": f"R@{k}"}  # fmt: skip
        names[f"binary_ndcg@{k}"] = {"pytrec_eval": f"ndcg_cut_{k}", "ranx": f"ndcg@{k}",
                              "ir-measures": f"nDCG@{k}"}  # fmt: skip
    names[f"mrr@{depth}"] = {"pytrec_eval": "recip_rank", "ranx": f"mrr@{depth}",
                             "ir-measures": "RR"}  # fmt: skip
    return names


def check_agreement(figures: dict[str, dict[str, float]], ks: tuple[int, ...], depth: int) -> float:
    """The largest difference between reval and any library; stops above 5e-7."""
    worst = 0.0
    for ours, theirs in reference_names(ks, depth).items():
        for library, name in theirs.items():
            if library not in figures:
                continue
            gap = abs(figures["reval"][ours] - figures[library][name])
            worst = max(worst, gap)
            if gap > 5e-7:
                raise SystemExit(f"{ours}: reval {figures['reval'][ours]!r} vs {library} "
                                 f"{name} {figures[library][name]!r}")  # fmt: skip
    return worst


def timed(step: Callable[[], dict[str, float]]) -> tuple[float, float, dict[str, float]]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = step()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--ks", default="1,3,5,10,100")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--graded", action="store_true", help="the IR measures on graded qrels")
    args = parser.parse_args()
    ks = normalize_ks(int(k) for k in args.ks.split(","))
    if max(ks) > args.depth:
        raise SystemExit("the deepest k must not exceed --depth")
    if args.graded:
        graded(args, ks)
        return
    libraries: dict[str, Callable[[Workload, tuple[int, ...], int], dict[str, float]]] = {
        "reval": reval_scoring,
        "pytrec_eval": pytrec_scoring,
    }
    for name, module, fn in (("ranx", "ranx", ranx_scoring),
                             ("ir-measures", "ir_measures", ir_measures_scoring)):  # fmt: skip
        try:
            __import__(module)
        except ImportError:
            print(f"({name} is not installed: pip install -e '.[bench]')")
        else:
            libraries[name] = fn
    data = workload(args.questions, args.depth)
    warm = workload(200, args.depth, seed=1)
    for fn in libraries.values():  # imports, and ranx's numba compilation
        fn(warm, ks, args.depth)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in libraries}
    figures: dict[str, dict[str, float]] = {}
    order = list(libraries)
    for round_ in range(args.rounds):
        for name in order if round_ % 2 == 0 else reversed(order):
            step = functools.partial(libraries[name], data, ks, args.depth)
            cpu, wall, figures[name] = timed(step)
            runs[name].append((cpu, wall))
    worst = check_agreement(figures, ks, args.depth)
    report(runs, args, worst, ks)


def graded(args: Any, ks: tuple[int, ...]) -> None:
    """The IR measures race (``--graded``): reval against pytrec_eval, sides alternated."""
    libraries = {"reval": reval_measures, "pytrec_eval": pytrec_measures}
    data = scored(graded_workload(args.questions, args.depth), ks, args.depth)
    warm = scored(graded_workload(200, args.depth, seed=1), ks, args.depth)
    for fn in libraries.values():
        fn(warm, ks, args.depth)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in libraries}
    figures: dict[str, dict[str, float]] = {}
    order = list(libraries)
    for round_ in range(args.rounds):
        for name in order if round_ % 2 == 0 else reversed(order):
            step = functools.partial(libraries[name], data, ks, args.depth)
            cpu, wall, figures[name] = timed(step)
            runs[name].append((cpu, wall))
    worst = max(abs(figures["reval"][n] - figures["pytrec_eval"][n]) for n in figures["reval"])
    if worst > 5e-7:
        raise SystemExit(f"the means disagree by {worst!r}: {figures}")
    report(runs, args, worst, ks)


def report(runs: dict[str, list[tuple[float, float]]], args: Any, worst: float,
           ks: tuple[int, ...]) -> None:  # fmt: skip
    print(f"{os.cpu_count()} CPUs · load average {os.getloadavg()[0]:.2f} · "
          f"{args.questions:,} questions x {args.depth} results · k={','.join(map(str, ks))} · "
          f"median of {args.rounds} rounds")  # fmt: skip
    cpu = {name: statistics.median(c for c, _ in r) for name, r in runs.items()}
    wall = {name: statistics.median(w for _, w in r) for name, r in runs.items()}
    print(f"{'':<12} {'CPU s':>7} {'wall s':>7} {'CPU vs pytrec_eval':>19}")
    for name in runs:
        print(f"{name:<12} {cpu[name]:>7.2f} {wall[name]:>7.2f} "
              f"{cpu[name] / cpu['pytrec_eval']:>18.2f}x")  # fmt: skip
    print(f"figures agree: largest difference {worst:.1e} (6 decimals required)")


if __name__ == "__main__":
    main()
