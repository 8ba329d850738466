"""A set × retriever over time: each run's headline rates, variant and stored verdict;
the questions that keep flipping; the questions never hit.

Everything is computed within one variant (another chunking, model, version or index of
the retriever is another variant) scored on one version of the labels (a set
fingerprint): flips are counted per question between consecutive runs *of the same
variant on the same labels* (oldest to newest) that both answered it, at top-1 and top-3,
so configurations that alternate, or a judgment added between two runs, never make a
question look flaky; failed retrievals are skipped, never misses. A question is *never
hit* when at least one run of the newest variant on the newest labels answered it and
none of them had it in its top 3. Label versions: ``comparison.label_versions``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from retrieval_eval.comparison.label_versions import (
    ALL,
    label_versions,
    side_by_side,
    version_name,
)
from retrieval_eval.comparison.results import FlakyQuestion, History, HistoryEntry
from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.fingerprint import variant_fingerprint
from retrieval_eval.regression.stored import stored_verdict
from retrieval_eval.retrievers.lineage import lineage_of
from retrieval_eval.store.stored_run import HowAccepted

if TYPE_CHECKING:  # importing store/ would load SQLAlchemy
    from retrieval_eval.store.stored_run import StoredRun

HISTORY_KS = (1, 3)


def build_history(
    set_name: str, retriever: str, stored: Sequence[StoredRun], *, labels_shown: str = ALL
) -> History:
    """``stored`` in any order; the history lists them newest first. ``labels_shown``
    says which label versions ``stored`` was chosen from (``label_versions.select_labels``)."""
    newest_first = sorted(stored, key=lambda s: s.run.started_at, reverse=True)
    oldest_first = [s.run for s in reversed(newest_first)]
    by_series: dict[str, list[RunResult]] = {}
    for run in oldest_first:
        by_series.setdefault(_series_key(run), []).append(run)
    several_labels = len({run.set_fingerprint for run in oldest_first}) > 1
    flaky = [
        replace(
            f,
            variant=variant_of(runs[-1]),
            labels=version_name(runs[-1].set_fingerprint) if several_labels else "",
        )
        for runs in by_series.values()
        for k in HISTORY_KS
        for f in _flips(runs, k)
        if f.flips
    ]
    flaky.sort(key=lambda f: (-f.flips, f.k))
    newest = _series_key(oldest_first[-1]) if oldest_first else ""
    entries = tuple(map(_entry, newest_first))
    versions = label_versions(entries[::-1])
    variants = {variant_key(run) for run in oldest_first}
    return History(
        set_name=set_name,
        retriever=retriever,
        entries=entries,
        flaky=tuple(flaky),
        never_hit=_never_hit(by_series.get(newest, []), HISTORY_KS[-1]),
        ks=HISTORY_KS,
        fingerprints=tuple(v.fingerprint for v in versions),
        never_hit_variant=variant_of(oldest_first[-1]) if len(variants) > 1 else "",
        label_versions=versions,
        side_by_side=side_by_side(entries),
        labels_shown=labels_shown,
        never_hit_labels=(
            version_name(oldest_first[-1].set_fingerprint) if len(versions) > 1 else ""
        ),
    )


def _series_key(run: RunResult) -> str:
    """Runs whose hits may be compared one after another: one variant, one label version."""
    return f"{variant_key(run)}|{run.set_fingerprint}"


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
        set_fingerprint=run.set_fingerprint,
        rescored_from=None if stored.rescored_from is None else stored.rescored_from[0],
        rescored_baseline=stored.accepted is not None
        and stored.accepted.how is HowAccepted.RESCORED,
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
