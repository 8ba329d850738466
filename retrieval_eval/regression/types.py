"""Records of a regression verdict, shared by the judge, the store and the reports."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class VerdictKind(StrEnum):
    PASS = "pass"
    REGRESSION = "regression"
    NO_BASELINE = "no-baseline"
    #: The baseline was scored against a different benchmark (labels, protocol,
    #: parameters or corpus revision): numbers cannot be compared.
    INCOMPARABLE = "incomparable"


@dataclass(frozen=True, slots=True)
class Thresholds:
    """A regression is a drop strictly greater than the threshold (absolute rate)."""

    max_top1_drop: float = 0.1
    max_top3_drop: float = 0.1
    #: Allowed increase of p95 latency in milliseconds; None disables the check.
    max_p95_latency_increase_ms: float | None = None


@dataclass(frozen=True, slots=True)
class MetricDelta:
    #: "overall", "form:GAP", "hard_class:near-duplicate", "latency" (measured under
    #: the run's concurrency) or "latency:unloaded" (the ``--latency-probe`` figures).
    group: str
    metric: str  # "top1_hit_rate", "top3_hit_rate", "p95_ms", ...
    baseline: float
    current: float
    threshold: float | None
    regressed: bool
    #: Questions behind each side (rates are over answered questions).
    baseline_count: int = 0
    current_count: int = 0

    @property
    def delta(self) -> float:
        return self.current - self.baseline


@dataclass(frozen=True, slots=True)
class Flip:
    question_id: str
    k: int  # 1 or 3
    direction: str  # "hit->miss" or "miss->hit"
    expected_document_ids: tuple[str, ...]
    current_ranking: tuple[str, ...]
    baseline_ranking: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PairedTest:
    """Exact McNemar test on the discordant pairs at one k."""

    k: int
    wins: int  # miss -> hit
    losses: int  # hit -> miss
    ties: int  # unchanged (both hit or both miss), over questions answered in both runs
    p_value: float
    significant: bool  # p_value < 0.05


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: VerdictKind
    baseline_run_id: str | None = None
    #: One line each, for humans: why the verdict is what it is.
    reasons: tuple[str, ...] = ()
    deltas: tuple[MetricDelta, ...] = ()
    flips: tuple[Flip, ...] = ()
    tests: tuple[PairedTest, ...] = ()
    #: Not failures: e.g. "set too small: one question moves top-1 by 0.021".
    warnings: tuple[str, ...] = ()
    #: For INCOMPARABLE: which parts of the benchmark fingerprint differ.
    incomparable_parts: tuple[str, ...] = ()

    def fails(self) -> bool:
        """What --fail-on-regression turns into exit code 1."""
        return self.kind in (VerdictKind.REGRESSION, VerdictKind.INCOMPARABLE)
