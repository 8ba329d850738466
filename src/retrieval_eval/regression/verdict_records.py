"""Records of a regression verdict, shared by the judge, the store and the reports."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import TYPE_CHECKING

from retrieval_eval.errors import InputError
from retrieval_eval.records.run import RunResult
from retrieval_eval.stats.mcnemar import DEFAULT_MAX_DROP

if TYPE_CHECKING:  # importing store/ would load SQLAlchemy
    from retrieval_eval.store.stored_run import Acceptance, Accepted


class VerdictKind(StrEnum):
    PASS = "pass"
    REGRESSION = "regression"
    NO_BASELINE = "no-baseline"
    #: The baseline was scored against a different benchmark (labels, protocol,
    #: parameters or corpus revision): numbers cannot be compared.
    INCOMPARABLE = "incomparable"
    #: More questions errored than the error budget (``--max-errors``) allows: the rates
    #: are over too few answered questions to be judged. Never a pass.
    INCOMPLETE = "incomplete"


@dataclass(frozen=True, slots=True)
class ErrorBudget:
    """How many errored questions a run may have and still be judged: a count, or a
    percentage of the run's questions. Exceeding it makes the verdict INCOMPLETE."""

    count: int = 0
    #: Percent of the run's questions (e.g. 2 for "2%"); when set, ``count`` is unused.
    percent: Fraction | None = None

    @classmethod
    def parse(cls, text: str) -> ErrorBudget:
        """``"3"`` (questions) or ``"2%"`` / ``"0.5%"`` (of the run's questions)."""
        raw = text.strip()
        try:
            if raw.endswith("%"):
                percent = Fraction(raw[:-1].strip())
                if not 0 <= percent <= 100:
                    raise ValueError(raw)
                return cls(percent=percent)
            count = int(raw)
            if count < 0:
                raise ValueError(raw)
            return cls(count=count)
        except (ValueError, ZeroDivisionError):
            raise InputError(
                f"invalid --max-errors {text!r}: give a number of questions (e.g. 3) or a "
                "percentage of the set (e.g. 2%)"
            ) from None

    def exceeded_by(self, errors: int, questions: int) -> bool:
        """More than the budget: compared exactly, in question counts."""
        if self.percent is None:
            return errors > self.count
        return Fraction(errors * 100) > self.percent * questions

    def __str__(self) -> str:
        if self.percent is None:
            return str(self.count)
        return f"{float(self.percent):g}%"


@dataclass(frozen=True, slots=True)
class Thresholds:
    """A regression is a drop strictly greater than the threshold (absolute rate)."""

    max_top1_drop: float = DEFAULT_MAX_DROP
    max_top3_drop: float = DEFAULT_MAX_DROP
    #: Allowed increase of p95 latency in milliseconds; None disables the check.
    max_p95_latency_increase_ms: float | None = None
    #: Errored questions a run may have and still be judged (``--max-errors``).
    max_errors: ErrorBudget = ErrorBudget()
    #: Largest allowed top-1 / top-3 drop since the lineage's drift reference (the best
    #: accepted run since a person last accepted one); None: drift is shown, never failed.
    max_drift: float | None = None
    #: A regression whose every lost hit rests on unjudged documents is INCOMPARABLE
    #: (still failing, never a pass) instead of a regression (``--unjudged-incomparable``,
    #: ``[gate] unjudged_incomparable``); off: an unjudged loss is a loss.
    unjudged_incomparable: bool = False


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
    #: For a form or hard class: the Holm-adjusted exact McNemar p-value of its paired
    #: flips (a group fails only when its drop exceeds the threshold *and* this is below
    #: 0.05; see ``regression.class_checks``). None when not tested.
    p_value: float | None = None

    @property
    def delta(self) -> float:
        return self.current - self.baseline


class FlipDirection(StrEnum):
    HIT_TO_MISS = "hit->miss"
    MISS_TO_HIT = "miss->hit"


@dataclass(frozen=True, slots=True)
class Flip:
    question_id: str
    k: int  # 1 or 3
    direction: FlipDirection
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
class UnjudgedAtK:
    """The lost hits at one k and how many of them rest on unjudged documents."""

    k: int
    #: Questions that lost their hit at k (hit -> miss), and those that gained one.
    losses: int
    wins: int
    #: The losing questions with an unjudged document in the current top k, in flip order.
    question_ids: tuple[str, ...]

    @property
    def net_loss(self) -> int:
        return self.losses - self.wins

    @property
    def turnable(self) -> int:
        """The largest part of the net loss judging could still turn around: at most one
        per loss resting on unjudged documents, never more than the net loss."""
        return max(0, min(self.net_loss, len(self.question_ids)))


@dataclass(frozen=True, slots=True)
class UnjudgedSummary:
    """What a verdict's lost hits rest on, against the labels the run was scored on
    (``regression.unjudged``); None on a verdict judged without them."""

    #: Where the labels live (the set file ``reval sets judge`` writes), for the command.
    set_source: str
    relevance_level: int
    by_k: tuple[UnjudgedAtK, ...] = ()
    #: True when this turned a regression into INCOMPARABLE (``unjudged_incomparable``).
    decided: bool = False

    @property
    def question_ids(self) -> tuple[str, ...]:
        """Every question whose loss at some k rests on unjudged documents (JSON's
        ``unjudged_losses``), in flip order."""
        return tuple(dict.fromkeys(q for at in self.by_k for q in at.question_ids))

    @property
    def losses(self) -> int:
        return sum(at.losses for at in self.by_k)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A run judged against its baseline: the kind (pass, regression, no-baseline,
    incomparable, incomplete), the baseline it was compared with, and the reasons."""

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
    #: The thresholds the run was judged with (None: an explicit comparison without).
    thresholds: Thresholds | None = None
    #: When the baseline is another variant of the lineage (chunking, model, pipeline,
    #: version): what changed, e.g. "chunking words=60,overlap=10 -> words=150,overlap=30".
    variant_change: str | None = None
    #: The run slow drift was measured from (its deltas are in group "drift"), if any.
    drift_reference_run_id: str | None = None
    #: Which rule decided a verdict on a run with errors (``regression.verdict``):
    #: ``RULE_BOTH`` (the questions scored in both runs) or ``RULE_MISSES`` (every errored
    #: question counted as a miss); None when the run had no errored question.
    rule: str | None = None
    #: Why this pass (or first run) did not become an accepted baseline, one line each:
    #: thresholds looser than the lineage's own, a baseline of another lineage, a
    #: required baseline missing, errored questions. Empty when it was accepted or failed.
    not_accepted: tuple[str, ...] = ()
    #: The baseline file judged against (``--baseline-file``), if any.
    baseline_file: str | None = None
    #: ``--require-baseline``: a NO-BASELINE verdict fails the gate like a regression.
    baseline_required: bool = False
    #: The lost hits classified by whether the documents now in the target's place were
    #: judged (``regression.unjudged``); None when the set's labels were not at hand.
    unjudged: UnjudgedSummary | None = None

    def fails(self) -> bool:
        """Not a passing gate: regression and incomparable (exit 1 with
        --fail-on-regression), incomplete (exit 3 whatever the flags), and no-baseline
        when a baseline is required (``--require-baseline``)."""
        return self.kind in _FAILING or self.missing_required_baseline

    @property
    def missing_required_baseline(self) -> bool:
        return self.baseline_required and self.kind is VerdictKind.NO_BASELINE


#: ``Verdict.rule`` values.
RULE_BOTH = "scored-in-both"
RULE_MISSES = "errors-as-misses"


_FAILING = frozenset((VerdictKind.REGRESSION, VerdictKind.INCOMPARABLE, VerdictKind.INCOMPLETE))


@dataclass(frozen=True, slots=True)
class RunReport:
    """One run as judged and reported; ``verdict`` is None when no check was made (an
    interrupted run, or a store that failed before its baseline was found)."""

    run: RunResult
    verdict: Verdict | None = None
    #: A person's acceptance of the run as a baseline (``reval runs accept``), when shown
    #: from the store.
    acceptance: Acceptance | None = None
    #: How the run became an accepted baseline, when it is one (saved and accepted).
    accepted: Accepted | None = None
