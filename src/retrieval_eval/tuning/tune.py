"""``tune_fusion``: the grid, cross-validated, compared with each member and plain RRF.

What it reports, and why:
- the held-out mean of the metric under tuning (k-fold, stratified by form, seeded) with
  its 95% Wilson interval: the number to expect from tuning on this set, not the
  in-sample best, which overfits a few hundred questions;
- each member alone and plain RRF on the same questions, paired with the held-out
  outcomes: wins, losses and the exact McNemar p-value; a gain whose p-value is at least
  0.05 is reported as within noise;
- the setting that is best on ALL questions (what to deploy), its in-sample score
  (optimistic by construction) and the ``[retrievers.NAME]`` block to paste, recommended
  only when the held-out figure beats the best member and plain RRF (else: keep what is
  there).
"""

from __future__ import annotations

import asyncio
import difflib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_eval.errors import InputError, UnknownNameError
from retrieval_eval.metric_keys import TOP3_HIT_RATE, parse_metric_key
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.records.parameters import DEFAULT_OVERFETCH, DEFAULT_TIMEOUT_S
from retrieval_eval.retrievers.fusion.config import FusionConfig
from retrieval_eval.retrievers.fusion.methods import (
    FusionMethod,
    FusionParams,
    MemberRanking,
    fuse,
)
from retrieval_eval.retrievers.fusion.retriever import FusedRetriever
from retrieval_eval.scoring.protocol import hits_at, request_limit
from retrieval_eval.stats.intervals import wilson
from retrieval_eval.stats.mcnemar import SIGNIFICANCE_LEVEL, mcnemar_exact, paired_counts
from retrieval_eval.tuning.crossval import best_setting, cross_validate, stratified_folds
from retrieval_eval.tuning.grid import DEFAULT_RRF_KS, DEFAULT_WEIGHT_LEVELS, settings_grid
from retrieval_eval.tuning.rankings import CachedRankings, collect_rankings


@dataclass(frozen=True, slots=True)
class TuneOptions:
    #: A hit-rate metric: ``top1_hit_rate``, ``top3_hit_rate`` or ``hit_rate@K``.
    metric: str = TOP3_HIT_RATE
    folds: int = 5
    seed: int = 0
    #: Results asked of each member = max(1, 3, K) * overfetch, as ``reval eval`` asks.
    overfetch: int = DEFAULT_OVERFETCH
    concurrency: int = 8
    timeout_s: float | None = None
    rrf_ks: tuple[int, ...] = DEFAULT_RRF_KS
    weight_levels: tuple[float, ...] = DEFAULT_WEIGHT_LEVELS


@dataclass(frozen=True, slots=True)
class Comparison:
    """A reference (a member alone, plain RRF) against the tuned held-out outcomes."""

    name: str
    estimate: RateEstimate
    #: Questions the tuned fusion gets right and the reference misses, and vice versa.
    wins: int
    losses: int
    p_value: float

    @property
    def gain(self) -> float:
        return (self.wins - self.losses) / self.estimate.count

    @property
    def within_noise(self) -> bool:
        return self.p_value >= SIGNIFICANCE_LEVEL


@dataclass(frozen=True, slots=True)
class TuningResult:
    name: str
    set_name: str
    members: tuple[str, ...]
    metric: str
    folds: int
    seed: int
    limit: int
    calls: tuple[int, ...]
    grid_size: int
    #: The tuned held-out estimate (each question scored by a setting chosen without it).
    held_out: RateEstimate
    #: The setting each fold's training chose.
    fold_choices: tuple[FusionParams, ...]
    #: The best setting on all questions, and its (optimistic) in-sample score.
    best: FusionParams
    in_sample: RateEstimate
    comparisons: tuple[Comparison, ...]
    paste: str
    notes: tuple[str, ...] = field(default=())

    @property
    def strongest_reference(self) -> Comparison:
        """The best of the members alone and plain RRF on the held-out questions."""
        return max(self.comparisons, key=lambda c: c.estimate.rate)

    @property
    def recommended(self) -> bool:
        """A setting is recommended only when its held-out figure beats every member alone
        and plain RRF; otherwise keep what is there (a tuned setting that loses is noise
        fitted to the set)."""
        return all(self.held_out.rate > c.estimate.rate for c in self.comparisons)


def metric_k(metric: str) -> int:
    """The cut-off of a hit-rate metric name; ``InputError`` for anything else."""
    parsed = parse_metric_key(metric)
    if parsed is None or not parsed.is_hit_rate:
        raise InputError(
            f"invalid --metric {metric!r}: tuning scores a hit rate: top1_hit_rate, "
            "top3_hit_rate or hit_rate@K"
        )
    return parsed.k


def tune_fusion(
    qs: GoldenQuestionSet,
    name: str,
    options: TuneOptions = TuneOptions(),
    *,
    config_path: Path | None = None,
) -> TuningResult:
    """Open the fusion ``name`` of reval.toml, tune it on ``qs`` and close it."""
    return asyncio.run(_open_and_tune(qs, name, options, config_path))


async def _open_and_tune(
    qs: GoldenQuestionSet, name: str, options: TuneOptions, config_path: Path | None
) -> TuningResult:
    # reval.toml and the retrievers load when a tuning runs
    from retrieval_eval.retrievers.config import load_config
    from retrieval_eval.retrievers.opening import open_retriever

    configs = load_config(config_path, used={name})
    entry = configs.get(name)
    if not isinstance(entry, FusionConfig):
        fusions = [n for n, e in configs.items() if isinstance(e, FusionConfig)]
        if entry is None:
            raise UnknownNameError("fusion", name, difflib.get_close_matches(name, fusions, n=3))
        raise InputError(f"{entry.where} is not a fusion: it has no 'fuse' key")
    fused = open_retriever(name, timeout_s=options.timeout_s, config_path=config_path)
    assert isinstance(fused, FusedRetriever)
    try:
        return await atune_fusion(qs, fused, options, entry=entry)
    finally:
        await fused.close()


async def atune_fusion(
    qs: GoldenQuestionSet,
    fused: FusedRetriever,
    options: TuneOptions = TuneOptions(),
    *,
    entry: FusionConfig | None = None,
) -> TuningResult:
    """Tune ``fused`` on ``qs``: each member asked once per question, then the grid."""
    k = metric_k(options.metric)
    fold_of = stratified_folds([q.form.value for q in qs.questions], options.folds, options.seed)
    limit = request_limit((k,), options.overfetch)
    timeout = options.timeout_s or fused.timeout_s or DEFAULT_TIMEOUT_S
    cached = await collect_rankings(
        qs, fused, limit=limit, concurrency=options.concurrency, timeout_s=timeout
    )
    return score_grid(qs, cached, fold_of, options, limit=limit, name=fused.name, entry=entry)


def score_grid(
    qs: GoldenQuestionSet,
    cached: CachedRankings,
    fold_of: Sequence[int],
    options: TuneOptions,
    *,
    limit: int,
    name: str,
    entry: FusionConfig | None = None,
) -> TuningResult:
    """Everything after the retrieval calls: pure, so a test can hand-build ``cached``."""
    k = metric_k(options.metric)
    expected = [q.expected_document_ids for q in qs.questions]
    members = len(cached.members)
    grid = settings_grid(members, rrf_ks=options.rrf_ks, weight_levels=options.weight_levels)
    notes: list[str] = []
    if not _all_scored(cached.rankings):
        grid = [s for s in grid if s.method is FusionMethod.RRF]
        notes.append("some results carry no finite score: combsum and combmnz were not tried")

    def hit(docs: Sequence[str], q: int) -> bool:
        return hits_at(docs, expected[q], (k,))[k]

    table = [
        [hit([f.document_id for f in fuse(r, s, limit)], q) for q, r in enumerate(cached.rankings)]
        for s in grid
    ]
    cv = cross_validate(table, fold_of)
    everything = range(len(expected))
    best = best_setting(table, everything)
    references = [
        (f"{m} alone", [hit([d for d, _ in r[i]], q) for q, r in enumerate(cached.rankings)])
        for i, m in enumerate(cached.members)
    ]
    references.append(("plain rrf k=60", table[0]))
    return TuningResult(
        name=name,
        set_name=qs.name,
        members=cached.members,
        metric=options.metric,
        folds=max(fold_of) + 1,
        seed=options.seed,
        limit=limit,
        calls=cached.calls,
        grid_size=len(grid),
        held_out=wilson(sum(cv.held_out), len(cv.held_out)),
        fold_choices=tuple(grid[i] for i in cv.chosen),
        best=grid[best],
        in_sample=wilson(sum(table[best]), len(expected)),
        comparisons=tuple(_compare(n, ref, cv.held_out) for n, ref in references),
        paste=paste_block(name, cached.members, grid[best], entry),
        notes=tuple(notes),
    )


def _all_scored(rankings: Sequence[Sequence[MemberRanking]]) -> bool:
    return all(s is not None and math.isfinite(s) for row in rankings for r in row for _, s in r)


def _compare(name: str, reference: Sequence[bool], tuned: Sequence[bool]) -> Comparison:
    wins, losses, _ = paired_counts(list(zip(reference, tuned, strict=True)))
    return Comparison(
        name, wilson(sum(reference), len(reference)), wins, losses, mcnemar_exact(wins, losses)
    )


def paste_block(
    name: str, members: Sequence[str], params: FusionParams, entry: FusionConfig | None = None
) -> str:
    """The ``[retrievers.NAME]`` table for ``params`` (other keys of ``entry`` kept)."""
    lines = [f"[retrievers.{name}]", "fuse = [" + ", ".join(_toml_str(m) for m in members) + "]"]
    lines.append(f'method = "{params.method.value}"')
    if params.method is FusionMethod.RRF:
        lines.append(f"k = {params.k}")
    if params.weights:
        lines.append("weights = [" + ", ".join(f"{w:g}" for w in params.weights) + "]")
    if entry is not None and entry.on_member_error.value != "error":
        lines.append(f'on_member_error = "{entry.on_member_error.value}"')
    if entry is not None and entry.timeout_s is not None:
        lines.append(f"timeout = {entry.timeout_s:g}")
    return "\n".join(lines)


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
