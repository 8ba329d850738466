"""A set × retriever over time: each run's headline rates, variant and stored verdict;
the questions that keep flipping; the questions never hit.

Everything is computed within one variant (another chunking, model, version or index of
the retriever is another variant): flips are counted per question between consecutive
runs *of the same variant* (oldest to newest) that both answered it, at top-1 and top-3,
so configurations that alternate never make a question look flaky; failed retrievals
are skipped, never misses. A question is *never hit* when at least one run of the newest
variant answered it and none of them had it in its top 3.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from retrieval_eval.comparison.results import FlakyQuestion, History, HistoryEntry
from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.fingerprint import variant_fingerprint
from retrieval_eval.regression.stored import stored_verdict
from retrieval_eval.retrievers.lineage import lineage_of

if TYPE_CHECKING:  # importing store/ would load SQLAlchemy
    from retrieval_eval.store.stored_run import StoredRun

HISTORY_KS = (1, 3)


def build_history(set_name: str, retriever: str, stored: Sequence[StoredRun]) -> History:
    """``stored`` in any order; the history lists them newest first."""
    newest_first = sorted(stored, key=lambda s: s.run.started_at, reverse=True)
    oldest_first = [s.run for s in reversed(newest_first)]
    by_variant: dict[str, list[RunResult]] = {}
    for run in oldest_first:
        by_variant.setdefault(variant_key(run), []).append(run)
    flaky = [
        replace(f, variant=variant_of(runs[-1]))
        for runs in by_variant.values()
        for k in HISTORY_KS
        for f in _flips(runs, k)
        if f.flips
    ]
    flaky.sort(key=lambda f: (-f.flips, f.k))
    newest = variant_key(oldest_first[-1]) if oldest_first else ""
    return History(
        set_name=set_name,
        retriever=retriever,
        entries=tuple(map(_entry, newest_first)),
        flaky=tuple(flaky),
        never_hit=_never_hit(by_variant.get(newest, []), HISTORY_KS[-1]),
        ks=HISTORY_KS,
        fingerprints=tuple(dict.fromkeys(r.set_fingerprint for r in oldest_first)),
        never_hit_variant=variant_of(oldest_first[-1]) if len(by_variant) > 1 else "",
    )


def variant_key(run: RunResult) -> str:
    """What makes two runs the same variant: the variant fingerprint (identifier,
    version, model, chunking, pipeline, separator) within one lineage; a gRPC replica's
    address is not part of it (its lineage follows the Describe identifier)."""
    lineage = lineage_of(run.retriever_target, run.retriever.identifier, resolve_paths=False)
    return f"{variant_fingerprint(run)}|{lineage}"


def variant_of(run: RunResult) -> str:
    """The variant a run measured, as people read it (version, model, chunking, where it
    ran), with the pipeline when one is declared."""
    label = run.retriever.variant_label(run.retriever_target)
    pipeline = run.retriever.pipeline
    return f"{label} · pipeline {pipeline}" if pipeline else label


def _entry(stored: StoredRun) -> HistoryEntry:
    run = stored.run
    return HistoryEntry(
        run_id=run.run_id or "(unsaved)",
        started_at=run.started_at,
        variant=variant_of(run),
        variant_key=variant_key(run),
        state=run.state.value,
        labels=dict(run.labels),
        question_count=len(run.questions) if stored.counts is None else stored.counts[0],
        errors=run.error_count if stored.counts is None else stored.counts[1],
        top1=run.metrics.intervals.get(TOP1_HIT_RATE),
        top3=run.metrics.intervals.get(TOP3_HIT_RATE),
        verdict=stored_verdict(stored),
        pinned=stored.pinned,
        acceptance=stored.acceptance,
        measures=run.measures,
        measure_convention=run.measure_convention,
    )


def _question_order(runs: Sequence[RunResult]) -> list[str]:
    return list(dict.fromkeys(q.question_id for run in reversed(runs) for q in run.questions))


def _flips(runs: Sequence[RunResult], k: int) -> list[FlakyQuestion]:
    series: dict[str, list[bool]] = {qid: [] for qid in _question_order(runs)}
    for run in runs:
        for q in run.questions:
            if q.answered and k in q.hits:
                series[q.question_id].append(q.hits[k])
    return [
        FlakyQuestion(
            question_id=qid,
            k=k,
            flips=sum(a != b for a, b in itertools.pairwise(hits)),
            hits=sum(hits),
            answered=len(hits),
        )
        for qid, hits in series.items()
    ]


def _never_hit(runs: Sequence[RunResult], k: int) -> tuple[str, ...]:
    answered: set[str] = set()
    hit: set[str] = set()
    for run in runs:
        for q in run.questions:
            if q.answered and k in q.hits:
                answered.add(q.question_id)
                if q.hits[k]:
                    hit.add(q.question_id)
    return tuple(qid for qid in _question_order(runs) if qid in answered and qid not in hit)
