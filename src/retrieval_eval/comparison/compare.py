"""Many runs of one benchmark side by side; the first is the reference.

- Runs scored against other labels or another scoring protocol are set apart as
  incomparable (other benchmark differences, e.g. parameters or corpus, are noted and
  compared anyway, as in a two-run comparison).
- Each run against the reference: every common metric's delta, a seeded paired bootstrap
  interval of each delta over the questions answered in both runs, and the exact McNemar
  test on the top-1 and top-3 flips with Holm's correction across the runs compared.
- Rank overlap against the reference, labels or not: Jaccard of the top-k distinct
  documents and rank-biased overlap (see ``overlap``).
- Breakdowns by form and hard class side by side, and a per-question grid with the
  questions on which the runs disagree first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from retrieval_eval.comparison.grid import question_rows
from retrieval_eval.comparison.label_versions import version_name
from retrieval_eval.comparison.overlap import DEFAULT_RBO_P, jaccard, rbo
from retrieval_eval.comparison.results import (
    Comparison,
    ComparisonSettings,
    GroupRow,
    IncomparableRun,
    Interval,
    OverlapSummary,
    RunColumn,
    RunDelta,
    RunVersusReference,
    SignificanceTest,
)
from retrieval_eval.errors import InputError
from retrieval_eval.metric_keys import parse_metric_key
from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.fingerprint import HARD_PARTS, benchmark_differences
from retrieval_eval.regression.paired import FLIP_KS, paired_outcomes, paired_tests
from retrieval_eval.regression.verdict import compare as compare_two
from retrieval_eval.regression.verdict_records import Thresholds
from retrieval_eval.scoring.judged import judged_at_k
from retrieval_eval.scoring.metrics import rank_metrics
from retrieval_eval.scoring.protocol import hits_at
from retrieval_eval.stats.many_runs import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    holm,
    paired_bootstrap_many,
)
from retrieval_eval.stats.mcnemar import SIGNIFICANCE_LEVEL

DEFAULT_OVERLAP_K = 10
DEFAULT_TOP_DOCUMENTS = 3
_LATENCY = ("p50_ms", "p95_ms")


def compare_runs(
    runs: Sequence[RunResult],
    *,
    alpha: float = SIGNIFICANCE_LEVEL,
    overlap_k: int = DEFAULT_OVERLAP_K,
    rbo_p: float = DEFAULT_RBO_P,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    top_documents: int = DEFAULT_TOP_DOCUMENTS,
    thresholds: Thresholds | None = None,
) -> Comparison:
    """Compare ``runs[1:]`` against ``runs[0]`` (see the module docstring); with
    ``thresholds``, each run also gets its regression verdict against the reference."""
    if len(runs) < 2:
        raise InputError(f"compare needs at least two runs, got {len(runs)}")
    ids = [_id(r) for r in runs]
    if len(set(ids)) != len(ids):
        raise InputError(f"a run is named twice: {', '.join(ids)}")
    if overlap_k < 1:
        raise InputError(f"the overlap depth k must be >= 1, got {overlap_k}")
    reference = runs[0]
    compared, incomparable, notes = [reference], [], {}
    for run in runs[1:]:
        differences = benchmark_differences(run, reference)
        hard = tuple(str(d) for d in differences if d.part in HARD_PARTS)
        relabelled = run.set_name == reference.set_name and any(
            d.part == "labels" for d in differences
        )
        if relabelled:  # the same set on other labels: its rankings can be rescored
            hard += (f"scored on other labels (version {version_name(run.set_fingerprint)}, the "
                     f"reference's {version_name(reference.set_fingerprint)}): reval runs "
                     f"rescore {_id(run)} --set FILE scores it on the reference's",)  # fmt: skip
        if hard:
            incomparable.append(IncomparableRun(_id(run), hard))
        else:
            compared.append(run)
            notes[_id(run)] = tuple(f"benchmark differs, compared anyway: {d}"
                                    for d in differences)  # fmt: skip
    settings = ComparisonSettings(alpha, "holm", resamples, seed, DEFAULT_CONFIDENCE,
                                  overlap_k, rbo_p, top_documents)  # fmt: skip
    metric_names = _common_metrics(compared)
    measure_names = _common_measures(compared)
    versus = _versus_all(reference, compared[1:], metric_names, settings, notes, measure_names)
    if thresholds is not None:
        versus = tuple(
            replace(v, verdict=compare_two(reference, run, thresholds))
            for v, run in zip(versus, compared[1:], strict=True)
        )
    return Comparison(
        reference_run_id=_id(reference),
        runs=tuple(run_column(run, max(reference.parameters.ks)) for run in compared),
        versus=versus,
        incomparable=tuple(incomparable),
        groups=_groups(compared),
        questions=question_rows(compared, overlap_k, rbo_p, top_documents),
        metric_names=metric_names,
        settings=settings,
        measure_names=measure_names,
    )


def run_column(run: RunResult, judged_k: int | None = None) -> RunColumn:
    """The run as a column; its Judged@k at ``judged_k`` (a comparison takes the
    reference's depth for every run, so that their figures share a k)."""
    return RunColumn(
        run_id=_id(run),
        set_name=run.set_name,
        retriever_identifier=run.retriever.identifier,
        retriever_version=run.retriever.version,
        retriever_target=run.retriever_target,
        variant=run.retriever.variant_label(run.retriever_target),
        state=run.state.value,
        started_at=run.started_at,
        question_count=len(run.questions),
        errors=run.error_count,
        metrics=run.metrics,
        latency=run.latency,
        labels=dict(run.labels),
        measures=run.measures,
        measure_convention=run.measure_convention,
        judged=judged_at_k(run, judged_k),
    )


def _id(run: RunResult) -> str:
    return run.run_id or "(unsaved)"


def _common_metrics(runs: Sequence[RunResult]) -> tuple[str, ...]:
    first = runs[0].metrics.values
    return tuple(name for name in first if all(name in r.metrics.values for r in runs[1:]))


def _common_measures(runs: Sequence[RunResult]) -> tuple[str, ...]:
    """The IR measures every run stored, when all stored them under one convention."""
    first = runs[0]
    if any(r.measure_convention != first.measure_convention for r in runs[1:]):
        return ()
    return tuple(name for name in first.measures if all(name in r.measures for r in runs[1:]))


def _versus_all(
    reference: RunResult,
    others: Sequence[RunResult],
    metric_names: tuple[str, ...],
    settings: ComparisonSettings,
    notes: dict[str, tuple[str, ...]],
    measure_names: tuple[str, ...] = (),
) -> tuple[RunVersusReference, ...]:
    pairs = [paired_outcomes(run, reference) for run in others]
    ks = [k for k in FLIP_KS if all(k in r.parameters.ks for r in (reference, *others))]
    raw = [paired_tests(p, ks) for p in pairs]
    adjusted = {k: holm([t.p_value for tests in raw for t in tests if t.k == k]) for k in ks}
    out = []
    for i, (run, run_pairs) in enumerate(zip(others, pairs, strict=True)):
        tests = tuple(
            SignificanceTest(t.k, t.wins, t.losses, t.ties, t.p_value, adjusted[t.k][i],
                             adjusted[t.k][i] < settings.alpha)
            for t in raw[i]
        )  # fmt: skip
        out.append(
            RunVersusReference(
                run_id=_id(run),
                deltas=_deltas(reference, run, run_pairs, metric_names, settings)
                + _measure_deltas(reference, run, measure_names),
                tests=tests,
                paired=len(run_pairs),
                overlap=_overlap(run_pairs, settings),
                notes=notes.get(_id(run), ()),
            )
        )
    return tuple(out)


Pair = tuple[QuestionOutcome, QuestionOutcome]


def _measure_deltas(
    reference: RunResult, run: RunResult, names: tuple[str, ...]
) -> tuple[RunDelta, ...]:
    """The stored IR measures' means against the reference's (no interval: only the
    means are stored)."""
    return tuple(
        RunDelta(_id(run), name, reference.measures[name].value, run.measures[name].value)
        for name in names
    )


def _deltas(
    reference: RunResult,
    run: RunResult,
    pairs: Sequence[Pair],
    metric_names: tuple[str, ...],
    settings: ComparisonSettings,
) -> tuple[RunDelta, ...]:
    intervals = _bootstrap_intervals(pairs, metric_names, settings)
    deltas = [
        RunDelta(
            run_id=_id(run),
            metric=name,
            reference=reference.metrics.values[name],
            value=run.metrics.values[name],
            interval=intervals[name],
        )
        for name in metric_names
    ]
    for name in _LATENCY:
        before_ms = None if reference.latency is None else getattr(reference.latency, name)
        now_ms = None if run.latency is None else getattr(run.latency, name)
        deltas.append(RunDelta(_id(run), name, before_ms, now_ms))
    return tuple(deltas)


def _bootstrap_intervals(
    pairs: Sequence[Pair], metric_names: tuple[str, ...], settings: ComparisonSettings
) -> dict[str, Interval | None]:
    """Metrics over the same paired questions share their resamples (hit rates over all
    of them, rank metrics over those with expected documents)."""
    groups: dict[tuple[int, ...], dict[str, list[float]]] = {}
    for name in metric_names:
        value_of = question_value(name)
        rows, diffs = [], []
        for i, (current, base) in enumerate(pairs):
            now, before = value_of(current), value_of(base)
            if now is not None and before is not None:
                rows.append(i)
                diffs.append(now - before)
        groups.setdefault(tuple(rows), {})[name] = diffs
    intervals: dict[str, Interval | None] = {}
    for columns in groups.values():
        bounds = paired_bootstrap_many(
            list(columns.values()),
            resamples=settings.bootstrap_resamples,
            seed=settings.bootstrap_seed,
            confidence=settings.confidence,
        )
        for name, found in zip(columns, bounds, strict=True):
            intervals[name] = None if found is None else Interval(*found)
    return intervals


def question_value(metric: str) -> Callable[[QuestionOutcome], float | None]:
    """The per-question value whose mean over answered questions is ``metric``
    (None where the metric leaves the question out, e.g. rank metrics on no-answer
    questions)."""
    parsed = parse_metric_key(metric)
    if parsed is None:
        raise ValueError(f"unknown metric {metric!r}")
    k = parsed.k
    if not parsed.is_hit_rate:
        return lambda q: (
            rank_metrics(q.ranked_document_ids, q.expected_document_ids, [k])[metric]
            if q.expected_document_ids
            else None
        )

    def hit(q: QuestionOutcome) -> float:
        found = q.hits.get(k)
        if found is None:
            found = hits_at(q.ranked_document_ids, q.expected_document_ids, [k])[k]
        return float(found)

    return hit


def _overlap(pairs: Sequence[Pair], settings: ComparisonSettings) -> OverlapSummary:
    k, p = settings.overlap_k, settings.rbo_p
    jaccards, rbos, identical = [], [], 0
    for current, base in pairs:
        now, before = current.ranked_document_ids[:k], base.ranked_document_ids[:k]
        jaccards.append(jaccard(before, now, k))
        rbos.append(rbo(before, now, p))
        identical += now == before
    n = len(pairs)
    return OverlapSummary(
        k=k,
        rbo_p=p,
        questions=n,
        mean_jaccard=sum(jaccards) / n if n else None,
        mean_rbo=sum(rbos) / n if n else None,
        identical=identical,
    )


def _groups(runs: Sequence[RunResult]) -> tuple[GroupRow, ...]:
    rows = []
    for kind, get in (("form", _by_form), ("hard_class", _by_class)):
        names = sorted({name for run in runs for name in get(run)})
        rows += [GroupRow(kind, name, tuple(get(run).get(name) for run in runs)) for name in names]
    return tuple(rows)


def _by_form(run: RunResult) -> dict[str, GroupMetrics]:
    return dict(run.by_form)


def _by_class(run: RunResult) -> dict[str, GroupMetrics]:
    return dict(run.by_hard_class)
