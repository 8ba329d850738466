"""The data of a many-run comparison and of a run history, rendered by every report
format (text, JSON, Markdown, HTML) and by ``reval ui``.

All records are frozen: the comparison is computed once, in the library, and the formats
only lay it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from retrieval_eval.comparison.label_versions import version_name
from retrieval_eval.records.metrics import GroupMetrics, LatencySummary, MeasureMean, RateEstimate
from retrieval_eval.regression.verdict_records import Verdict
from retrieval_eval.scoring.judged import JudgedAtK

if TYPE_CHECKING:  # importing store/ would load SQLAlchemy
    from retrieval_eval.comparison.label_versions import LabelVersion, SideBySide
    from retrieval_eval.store.stored_run import Acceptance


class QuestionsShown(StrEnum):
    """Which rows of the per-question grid a report shows."""

    ALL = "all"
    DISAGREE = "disagree"
    NONE = "none"


class Cell(StrEnum):
    """One run's result on one question, best first."""

    HIT1 = "hit@1"  # the best distinct document is expected
    HIT3 = "hit@3"  # an expected document is in the best three, not first
    MISS = "miss"
    ERROR = "error"  # the retrieval failed: never a miss
    ABSENT = "absent"  # the question is not in this run


@dataclass(frozen=True, slots=True)
class RunColumn:
    """One compared run: who it is and what it measured."""

    run_id: str
    set_name: str
    retriever_identifier: str
    retriever_version: str
    retriever_target: str
    #: What tells runs of one retriever identifier apart (version, model, chunking,
    #: target), e.g. ``bm25 0.1.0 · chunking words=50 · bm25:small-chunks``.
    variant: str
    state: str
    started_at: datetime
    question_count: int
    errors: int
    metrics: GroupMetrics
    latency: LatencySummary | None
    labels: Mapping[str, str] = field(default_factory=dict)
    #: The IR measures the run stored (``reval eval --measures``) and their convention.
    measures: Mapping[str, MeasureMean] = field(default_factory=dict)
    measure_convention: str = "reval"
    #: Judged@k overall, by form and by hard class (``scoring.judged``); None unless
    #: the run's set records judgments.
    judged: JudgedAtK | None = None


@dataclass(frozen=True, slots=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class SignificanceTest:
    """Exact McNemar test of one run against the reference at one k, Holm-corrected
    across the runs compared."""

    k: int
    wins: int  # miss -> hit against the reference
    losses: int  # hit -> miss against the reference
    ties: int
    p_value: float
    p_holm: float
    significant: bool  # p_holm < alpha


@dataclass(frozen=True, slots=True)
class RunDelta:
    """One metric of one run against the reference (``delta = value - reference``)."""

    run_id: str
    metric: str  # canonical name: "top1_hit_rate", "mrr@10", "p95_ms", ...
    reference: float | None
    value: float | None
    #: Paired bootstrap interval of the delta over questions answered in both runs
    #: (hit-rate and per-question rank metrics only).
    interval: Interval | None = None

    @property
    def delta(self) -> float | None:
        if self.reference is None or self.value is None:
            return None
        return self.value - self.reference


@dataclass(frozen=True, slots=True)
class RunVersusReference:
    """Everything about one run against the reference run."""

    run_id: str
    deltas: tuple[RunDelta, ...]
    tests: tuple[SignificanceTest, ...]
    #: Questions answered in both runs (what the paired statistics are over).
    paired: int
    overlap: OverlapSummary
    #: Benchmark parts that differ but still compare (e.g. corpus), one line each.
    notes: tuple[str, ...] = ()
    #: The regression verdict against the reference, when thresholds were given.
    verdict: Verdict | None = None


@dataclass(frozen=True, slots=True)
class OverlapSummary:
    """How far apart two runs' rankings are, over questions answered in both."""

    k: int
    rbo_p: float
    questions: int
    mean_jaccard: float | None
    mean_rbo: float | None
    identical: int  # questions whose top-k distinct documents are identical, in order


@dataclass(frozen=True, slots=True)
class IncomparableRun:
    run_id: str
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GroupRow:
    """One form or hard class across the runs (None: the run has no such questions)."""

    kind: str  # "form" or "hard_class"
    name: str
    metrics: tuple[GroupMetrics | None, ...]  # in the order of Comparison.runs


@dataclass(frozen=True, slots=True)
class QuestionOverlap:
    jaccard: float
    rbo: float


@dataclass(frozen=True, slots=True)
class QuestionRow:
    """One question across the runs: its cell, top documents and overlap per run."""

    question_id: str
    form: str
    hard_class: str | None
    expected_document_ids: tuple[str, ...]
    cells: tuple[Cell, ...]  # in the order of Comparison.runs
    top_documents: tuple[tuple[str, ...], ...]  # each run's best distinct documents
    #: Against the reference, for each run after the first (None: not answered in both).
    overlap: tuple[QuestionOverlap | None, ...]
    disagree: bool
    #: The question as asked (from the first run that stored it); None when none did.
    question_text: str | None = None


@dataclass(frozen=True, slots=True)
class ComparisonSettings:
    alpha: float
    correction: str  # "holm"
    bootstrap_resamples: int
    bootstrap_seed: int
    confidence: float
    overlap_k: int
    rbo_p: float
    top_documents: int


@dataclass(frozen=True, slots=True)
class Comparison:
    """Many runs of one benchmark side by side; ``runs[0]`` is the reference."""

    reference_run_id: str
    runs: tuple[RunColumn, ...]
    versus: tuple[RunVersusReference, ...]  # one per run after the reference
    incomparable: tuple[IncomparableRun, ...]
    groups: tuple[GroupRow, ...]
    #: Disagreements first, then the set's order.
    questions: tuple[QuestionRow, ...]
    #: Canonical metric names present in every compared run, in display order.
    metric_names: tuple[str, ...]
    settings: ComparisonSettings
    #: IR measures every compared run stored under one convention (their deltas are in
    #: ``versus``), in the reference's order.
    measure_names: tuple[str, ...] = ()

    @property
    def disagreements(self) -> int:
        return sum(1 for q in self.questions if q.disagree)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One run in a history, newest first."""

    run_id: str
    started_at: datetime
    variant: str
    state: str
    labels: Mapping[str, str]
    question_count: int
    errors: int
    top1: RateEstimate | None
    top3: RateEstimate | None
    #: The verdict stored with the run (None: saved without a regression check).
    verdict: Verdict | None
    pinned: bool
    #: A person's acceptance of the run as a baseline, if any.
    acceptance: Acceptance | None = None
    #: Runs with the same key are the same variant (``comparison.history.variant_key``).
    variant_key: str = ""
    #: The IR measures the run stored, and their convention.
    measures: Mapping[str, MeasureMean] = field(default_factory=dict)
    measure_convention: str = "reval"
    #: The labels the run was scored on (its set fingerprint).
    set_fingerprint: str = ""
    #: The run it was rescored from (``reval runs rescore``); None: its retriever was asked.
    rescored_from: str | None = None
    #: A rescore of an accepted run, accepted for the new labels (it has no verdict of
    #: its own: it carries its source's standing).
    rescored_baseline: bool = False

    @property
    def label_version(self) -> str:
        """The labels it was scored on, by the name every view gives them."""
        return version_name(self.set_fingerprint)

    def verdict_shown(self, unchecked: str = "not stored") -> str:
        """The stored verdict's kind, else what the run stands as."""
        if self.verdict is not None:
            return self.verdict.kind.value
        return "rescored baseline" if self.rescored_baseline else unchecked


@dataclass(frozen=True, slots=True)
class FlakyQuestion:
    """A question whose top-k hit changed between consecutive runs."""

    question_id: str
    k: int
    flips: int  # changes between consecutive runs that both answered it
    hits: int
    answered: int  # runs that answered it
    #: The variant whose runs these are (flips are never counted across variants).
    variant: str = ""
    #: The label version they were scored on, when the history holds several (flips are
    #: never counted across label versions).
    labels: str = ""


@dataclass(frozen=True, slots=True)
class History:
    set_name: str
    retriever: str
    entries: tuple[HistoryEntry, ...]
    #: Most flips first; only questions that flipped at least once.
    flaky: tuple[FlakyQuestion, ...]
    #: Questions answered in at least one run and never a hit at k in any, set order.
    never_hit: tuple[str, ...]
    #: Cutoffs flips are counted at; never-hit means no hit at the deepest of them.
    ks: tuple[int, ...]
    #: Labels (set fingerprints) seen; more than one means the labels changed over time.
    fingerprints: tuple[str, ...] = ()
    #: When the history holds several variants: the newest one, which ``never_hit`` is
    #: about ("" when there is only one).
    never_hit_variant: str = ""
    #: The label versions the entries were scored on, oldest first.
    label_versions: tuple[LabelVersion, ...] = ()
    #: With several versions: each source run beside its rescores (newest first).
    side_by_side: tuple[SideBySide, ...] = ()
    #: Which versions are shown (``runs history --labels``): "all", or one version's name.
    labels_shown: str = "all"
    #: With several versions: the newest run's, which ``never_hit`` is about.
    never_hit_labels: str = ""
