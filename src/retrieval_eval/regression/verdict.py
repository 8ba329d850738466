"""The regression verdict: is the current run worse than its baseline beyond the
thresholds, overall or in any form or hard class, and which questions flipped?

A regression is a drop *strictly greater* than the threshold. Drops are compared exactly
in question counts (a drop of 0.5 -> 0.4 against a threshold of 0.1 is not a regression),
not in floating point. Over the whole set that is the rule; a form or hard class also
needs significant paired flips (``regression.class_checks``), and slow drift over a chain
of accepted runs is measured too (``regression.drift``). A verdict that compared nothing
(no question scored, or none scored in both runs) is INCOMPLETE, never a pass.

Errors never improve a verdict. Rates are compared on the questions scored in both runs
(an errored question leaves both sides, not just the run's denominator), and a run with
errored questions passes only if it would also pass with every one of them counted as a
miss against the baseline's rates on all its scored questions. ``Verdict.rule`` says which
of the two decided.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression import advice, class_checks
from retrieval_eval.regression.drift import DRIFT_GROUP, drift_deltas
from retrieval_eval.regression.drop import drop_exceeds
from retrieval_eval.regression.fingerprint import (
    HARD_PARTS,
    BenchmarkDifference,
    benchmark_differences,
)
from retrieval_eval.regression.paired import (
    FLIP_KS,
    common_ks,
    flips,
    paired_outcomes,
    paired_tests,
    unpaired_count,
)
from retrieval_eval.regression.unjudged import SetJudgments, weigh
from retrieval_eval.regression.variant_change import variant_change
from retrieval_eval.regression.verdict_records import (
    RULE_BOTH,
    RULE_MISSES,
    MetricDelta,
    Thresholds,
    Verdict,
    VerdictKind,
)
from retrieval_eval.scoring.metrics import summarize_with_breakdowns

_RATES = ((TOP1_HIT_RATE, "top-1"), (TOP3_HIT_RATE, "top-3"))
_EPS = 1e-9


def judge(
    current: RunResult,
    baseline: RunResult | None,
    thresholds: Thresholds,
    drift_from: RunResult | None = None,
    judged: SetJudgments | None = None,
) -> Verdict:
    """The verdict on ``current`` against ``baseline`` (None: no baseline found);
    ``drift_from`` is the lineage's drift reference (``regression.drift``), if any;
    ``judged``, the labels ``current`` was scored on, classifies its lost hits
    (``regression.unjudged``; other labels are ignored).

    A run with more errored questions than ``thresholds.max_errors`` is INCOMPLETE
    whatever its rates: errors leave the denominator, so they could only flatter it. So
    is a run with no scored question, or none scored in both it and its baseline: a
    verdict that checked nothing is never a pass.
    """
    incomplete = incomplete_verdict(current, thresholds)
    if incomplete is not None:
        return incomplete
    size = tuple(advice.size_warnings(current, thresholds))
    if baseline is None:
        reason = (f"no accepted earlier run of set {current.set_name!r} with retriever "
                  f"{current.retriever.identifier!r} to compare against")  # fmt: skip
        return Verdict(
            VerdictKind.NO_BASELINE, reasons=(reason,), warnings=size, thresholds=thresholds
        )
    change = variant_change(current, baseline)
    differences = benchmark_differences(current, baseline)
    if differences:
        verdict = _incomparable(baseline, differences, size)
        return replace(verdict, thresholds=thresholds, variant_change=change)
    if not paired_outcomes(current, baseline):
        reason = (f"no question was scored in both this run and baseline {baseline.run_id}: "
                  "nothing was compared")  # fmt: skip
        return Verdict(VerdictKind.INCOMPLETE, baseline_run_id=baseline.run_id,
                       reasons=(reason,), thresholds=thresholds, variant_change=change)  # fmt: skip
    verdict = _errors_never_help(current, baseline, thresholds, size)
    drift, drift_notes = drift_deltas(current, baseline, drift_from, thresholds)
    regressed = [d for d in drift if d.regressed]
    verdict = replace(
        verdict,
        kind=VerdictKind.REGRESSION if regressed else verdict.kind,
        reasons=_merge_reasons(verdict, regressed, drift_from),
        deltas=(*verdict.deltas, *drift),
        warnings=(*verdict.warnings, *drift_notes),
        variant_change=change,
        drift_reference_run_id=drift_from.run_id if drift and drift_from else None,
    )
    if judged is not None and not judged.covers(current.set_name, current.set_fingerprint):
        judged = None
    return weigh(verdict, judged, allow_incomparable=thresholds.unjudged_incomparable)


def _errors_never_help(
    current: RunResult, baseline: RunResult, thresholds: Thresholds, size: tuple[str, ...]
) -> Verdict:
    """The numeric verdict under both rules of the module docstring."""
    pairs = paired_outcomes(current, baseline)
    if len(pairs) == current.metrics.count == baseline.metrics.count and not current.error_count:
        return _numeric(current, baseline, thresholds, size)  # every question on both sides
    both = _numeric(
        _rated(current, [now for now, _ in pairs]),
        _rated(baseline, [before for _, before in pairs]),
        thresholds,
        size,
    )
    errored = sum(1 for q in current.questions if q.error is not None)
    if not errored:
        return both
    scored_before = {q.question_id for q in baseline.questions if q.answered}
    as_misses = _numeric(
        _rated(current, [_as_miss(q, current.parameters.ks) for q in current.questions
                         if q.question_id in scored_before]),
        _rated(baseline, [q for q in baseline.questions if q.answered]),
        thresholds,
        size,
    )  # fmt: skip
    counted = f"{errored} errored {'question' if errored == 1 else 'questions'}"
    if both.kind is VerdictKind.REGRESSION:
        rule = f"decided on the {len(pairs)} questions scored in both runs ({counted} left out)"
        return replace(both, rule=RULE_BOTH, reasons=(*both.reasons, rule))
    if as_misses.kind is VerdictKind.REGRESSION:
        rule = (f"decided with the {counted} counted as misses: errors never improve a "
                f"verdict (on the {len(pairs)} scored in both runs it passes)")  # fmt: skip
        return replace(as_misses, rule=RULE_MISSES, reasons=(*as_misses.reasons, rule))
    rule = (f"passes on the {len(pairs)} questions scored in both runs and with the {counted} "
            "counted as misses")  # fmt: skip
    return replace(both, rule=RULE_MISSES, reasons=(*both.reasons, rule))


def _rated(run: RunResult, outcomes: list[QuestionOutcome]) -> RunResult:
    """``run`` with its rates over ``outcomes`` only (its questions kept, for flips)."""
    overall, by_form, by_class = summarize_with_breakdowns(outcomes, run.parameters.ks)
    return replace(run, metrics=overall, by_form=by_form, by_hard_class=by_class)


def _as_miss(question: QuestionOutcome, ks: tuple[int, ...]) -> QuestionOutcome:
    """An errored question as a miss at every k (nothing retrieved, nothing hit)."""
    if question.error is None:
        return question
    return replace(question, error=None, raw_ids=(), ranked_document_ids=(), raw_scores=(),
                   hits=dict.fromkeys(ks, False))  # fmt: skip


def _merge_reasons(
    verdict: Verdict, drifted: list[MetricDelta], reference: RunResult | None
) -> tuple[str, ...]:
    if not drifted or reference is None:
        return verdict.reasons
    lines = tuple(
        f"{dict(_RATES)[d.metric]} hit rate drifted {-d.delta:.3f} since run "
        f"{reference.run_id} ({d.baseline:.3f} -> {d.current:.3f}), the best accepted run of "
        f"this lineage, more than --max-drift {d.threshold:g}"
        for d in drifted
    )
    earlier = verdict.reasons if verdict.kind is VerdictKind.REGRESSION else ()
    return (*earlier, *lines)


def incomplete_verdict(run: RunResult, thresholds: Thresholds) -> Verdict | None:
    """INCOMPLETE when ``run``'s errored questions exceed the error budget, when no
    question was scored at all (whatever the budget), or when a fused run's member was
    skipped on every scored question (it measured the other members only: a retrieval
    failure of the run, not a result), else None."""
    errors, total = run.error_count, len(run.questions)
    if not thresholds.max_errors.exceeded_by(errors, total):
        scored = run.metrics.count
        dead = [m for m, n in run.skipped_members.items() if scored and n == scored]
        if scored and not dead:
            return None
        if not scored:
            reason = (f"no question was scored ({errors} of {total} failed to retrieve): "
                      "a run that measured nothing cannot pass")  # fmt: skip
        else:
            reason = (f"fusion member {', '.join(dead)} failed on every one of the "
                      f"{scored} scored questions (skipped): the run measured the other "
                      "members only")  # fmt: skip
        return Verdict(VerdictKind.INCOMPLETE, reasons=(reason,))
    kinds = Counter(q.error.kind for q in run.questions if q.error is not None)
    detail = ", ".join(f"{n} {kind}" for kind, n in kinds.most_common())
    reason = (f"{errors} of {total} questions failed to retrieve ({detail}), more than "
              f"--max-errors {thresholds.max_errors}: the run cannot be judged")  # fmt: skip
    return Verdict(VerdictKind.INCOMPLETE, reasons=(reason,))


def compare(a: RunResult, b: RunResult, thresholds: Thresholds | None = None) -> Verdict:
    """``b`` against ``a`` for any two runs of the same labels (e.g. two retrievers).

    Without thresholds the verdict is PASS with every delta, flip and test; with them,
    REGRESSION when ``b`` dropped beyond them. Labels or protocol that differ make it
    INCOMPARABLE; other benchmark differences (parameters, corpus) become warnings.
    """
    differences = benchmark_differences(b, a)
    hard = tuple(d for d in differences if d.part in HARD_PARTS)
    if hard:
        return _incomparable(a, hard, ())
    notes = tuple(f"benchmark differs, compared anyway: {d}" for d in differences)
    size = tuple(advice.size_warnings(b, thresholds)) if thresholds else ()
    return _numeric(b, a, thresholds, notes + size)


def _incomparable(
    baseline: RunResult, differences: tuple[BenchmarkDifference, ...], warnings: tuple[str, ...]
) -> Verdict:
    parts = tuple(d.part for d in differences)
    reasons = (
        f"baseline {baseline.run_id or '(unsaved)'} was scored against a different benchmark "
        f"({', '.join(parts)}); numbers are not compared",
        *map(str, differences),
        *_rescore_hint(baseline, parts),
    )
    return Verdict(
        VerdictKind.INCOMPARABLE,
        baseline_run_id=baseline.run_id,
        reasons=reasons,
        warnings=warnings,
        incomparable_parts=parts,
    )


def _rescore_hint(baseline: RunResult, parts: tuple[str, ...]) -> tuple[str, ...]:
    """One line when only the labels moved under a stored baseline: its rankings can be
    scored again on the current labels without asking the retriever."""
    if parts != ("labels",) or baseline.run_id is None:
        return ()
    return (
        f"baseline {baseline.run_id} was scored on older labels of set {baseline.set_name!r}: "
        f"rescore it on the current ones with `reval runs rescore {baseline.run_id} --set FILE`",
    )


def _numeric(
    current: RunResult,
    baseline: RunResult,
    thresholds: Thresholds | None,
    warnings: tuple[str, ...],
) -> Verdict:
    pairs = paired_outcomes(current, baseline)
    deltas, group_notes = class_checks.apply(_all_deltas(current, baseline, thresholds), pairs)
    ks = common_ks(current, baseline)
    tests = paired_tests(pairs, ks)
    regressed = [d for d in deltas if d.regressed]
    notes = [
        *warnings,
        *_state_warnings(current, "current run"),
        *_state_warnings(baseline, f"baseline {baseline.run_id or '(unsaved)'}"),
        *group_notes,
        *advice.noise_warnings(deltas, tests),
        *_latency_warnings(deltas, current, baseline),
    ]
    unpaired = unpaired_count(current, baseline)
    if unpaired:
        noun = "question" if unpaired == 1 else "questions"
        notes.append(f"{unpaired} {noun} scored in only one run left out of the flips and "
                     "the paired test")  # fmt: skip
    return Verdict(
        kind=VerdictKind.REGRESSION if regressed else VerdictKind.PASS,
        baseline_run_id=baseline.run_id,
        reasons=tuple(map(_describe, regressed)) or (_summary(deltas, thresholds),),
        deltas=tuple(deltas),
        flips=tuple(flips(pairs, [k for k in FLIP_KS if k in ks])),
        tests=tuple(tests),
        warnings=tuple(notes),
        thresholds=thresholds,
    )


def _all_deltas(
    current: RunResult, baseline: RunResult, thresholds: Thresholds | None
) -> list[MetricDelta]:
    deltas = _rate_deltas("overall", current.metrics, baseline.metrics, thresholds)
    for prefix, now, before in (
        ("form", current.by_form, baseline.by_form),
        ("hard_class", current.by_hard_class, baseline.by_hard_class),
    ):
        for name in _common(now, before):
            deltas += _rate_deltas(f"{prefix}:{name}", now[name], before[name], thresholds)
    latency = _latency_delta(current, baseline, thresholds)
    return deltas + ([latency] if latency else [])


def _common(now: Mapping[str, GroupMetrics], before: Mapping[str, GroupMetrics]) -> list[str]:
    return [name for name in now if name in before]


def _rate_deltas(
    group: str, now: GroupMetrics, before: GroupMetrics, thresholds: Thresholds | None
) -> list[MetricDelta]:
    out = []
    for metric, _ in _RATES:
        if metric not in now.values or metric not in before.values:
            continue
        limit = None
        if thresholds is not None:
            limit = (
                thresholds.max_top1_drop if metric == TOP1_HIT_RATE else thresholds.max_top3_drop
            )
        out.append(
            MetricDelta(
                group=group,
                metric=metric,
                baseline=before.values[metric],
                current=now.values[metric],
                threshold=limit,
                regressed=limit is not None and drop_exceeds(metric, now, before, limit),
                baseline_count=before.count,
                current_count=now.count,
            )
        )
    return out


def _latency_delta(
    current: RunResult, baseline: RunResult, thresholds: Thresholds | None
) -> MetricDelta | None:
    """The latency gate: on the unloaded probes when both runs have one (group
    ``latency:unloaded``), else on the latencies measured under load (``latency``)."""
    limit = thresholds.max_p95_latency_increase_ms if thresholds else None
    if limit is None:
        return None
    group, now, before = "latency:unloaded", current.latency_probe, baseline.latency_probe
    if now is None or before is None:
        group, now, before = "latency", current.latency, baseline.latency
    if now is None or before is None:
        return None
    return MetricDelta(
        group=group,
        metric="p95_ms",
        baseline=before.p95_ms,
        current=now.p95_ms,
        threshold=limit,
        regressed=now.p95_ms - before.p95_ms > limit + _EPS,
        baseline_count=before.count,
        current_count=now.count,
    )


def _latency_warnings(
    deltas: list[MetricDelta], current: RunResult, baseline: RunResult
) -> list[str]:
    """Loaded latency compared across different concurrencies measures the load too."""
    was, now = baseline.parameters.concurrency, current.parameters.concurrency
    if was == now or not any(d.group == "latency" for d in deltas):
        return []
    return [f"p95 latency compared across concurrencies ({was} in flight in the baseline, "
            f"{now} now): queueing differs, so the change is not the retriever's alone; "
            "compare unloaded latency with --latency-probe N on both runs"]  # fmt: skip


def _describe(d: MetricDelta) -> str:
    if d.metric == "p95_ms":
        which = "unloaded p95 latency" if d.group == "latency:unloaded" else "p95 latency"
        return (f"{which} rose {d.delta:+.1f} ms ({d.baseline:.1f} -> {d.current:.1f}), "
                f"more than the allowed {d.threshold:g} ms")  # fmt: skip
    name = dict(_RATES)[d.metric]
    where = "overall" if d.group == "overall" else f"in {d.group}"
    return (
        f"{name} hit rate {where} fell {-d.delta:.3f} ({d.baseline:.3f} -> {d.current:.3f}, "
        f"{d.baseline_count} -> {d.current_count} questions), more than the allowed "
        f"{d.threshold:g}"
    )


def _summary(deltas: list[MetricDelta], thresholds: Thresholds | None) -> str:
    overall = ", ".join(f"{dict(_RATES)[d.metric]} {d.delta:+.3f}" for d in deltas
                        if d.group == "overall" and d.metric in dict(_RATES))  # fmt: skip
    if thresholds is None:
        return f"compared: {overall or 'no common rates'}"
    groups = len({d.group for d in deltas if d.group != DRIFT_GROUP})
    return f"no drop beyond the thresholds ({overall}; {groups} groups checked)"


def _state_warnings(run: RunResult, who: str) -> list[str]:
    if run.complete:
        return []
    return [f"{who} is {run.state.value}: {run.error_count} failed retrievals; its rates "
            f"are over its {run.metrics.count} scored questions"]  # fmt: skip
