"""The exact McNemar test on paired hit/miss outcomes, and what a set of n questions can
detect with it. Pure arithmetic, in the bottom layer, so that linting a set (before any
run) and judging a run (after two) quote the same numbers.

Only discordant pairs carry information: ``wins`` (miss -> hit) and ``losses``
(hit -> miss). Under the null hypothesis (no change) each discordant pair is a fair coin,
so the two-sided p-value is ``2 * P(X <= min(wins, losses))`` for X ~ Binomial(n, 1/2),
capped at 1.

What n questions can detect, at level ``SIGNIFICANCE_LEVEL``:

1. one question moves a rate by ``1/n``;
2. the smallest net change the test can call significant is ``m/n``, where m is the
   fewest discordant pairs that, all one way, give p < alpha (m = 6 at 0.05: p = 2/64);
   below that no change of any size can be significant;
3. the questions needed to detect a drop ``d`` with 80% power follow Connor (1987):
   ``n = (z(1-alpha/2) * sqrt(psi) + z(power) * sqrt(psi - d**2))**2 / d**2``, where
   ``psi`` is the assumed share of questions that flip either way between the two runs
   (the discordance; at least ``d``, since a net drop of d needs that many flips).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE

SIGNIFICANCE_LEVEL = 0.05
#: Power the sample size is planned for.
TARGET_POWER = 0.8
#: The regression thresholds' default: a drop of more than 0.1 in a hit rate regresses.
DEFAULT_MAX_DROP = 0.1
#: Assumed share of questions whose hit flips (either way) between two runs compared.
DEFAULT_DISCORDANCE = 0.1
#: Up to this many discordant pairs the p-value is computed in exact integers.
_EXACT_UP_TO = 1000


def mcnemar_exact(wins: int, losses: int) -> float:
    """Two-sided exact McNemar p-value; 1.0 when nothing flipped."""
    if wins < 0 or losses < 0:
        raise ValueError(f"counts must be >= 0, got wins={wins}, losses={losses}")
    n, m = wins + losses, min(wins, losses)
    if n == 0:
        return 1.0
    if n <= _EXACT_UP_TO:
        tail = sum(math.comb(n, i) for i in range(m + 1))
        return min(1.0, 2 * tail / (1 << n))
    return min(1.0, 2 * _binomial_half_tail(n, m))


def _binomial_half_tail(n: int, m: int) -> float:
    """P(X <= m), X ~ Binomial(n, 1/2), m <= n/2, in floating point for large n: start at
    the largest term (i = m) and sum downwards until terms no longer matter."""
    log_term = math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1) - n * math.log(2)
    term = math.exp(log_term)
    total = 0.0
    i = m
    while i >= 0 and term > 0.0:
        total += term
        if term < total * 1e-17:
            break
        term *= i / (n - i + 1)  # C(n, i-1) / C(n, i)
        i -= 1
    return total


def fewest_significant_flips(alpha: float = SIGNIFICANCE_LEVEL) -> int:
    """The fewest discordant pairs, all one way, that exact McNemar calls significant."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    m = 1
    while mcnemar_exact(0, m) >= alpha:
        m += 1
    return m


def questions_needed(
    drop: float,
    discordance: float = DEFAULT_DISCORDANCE,
    *,
    alpha: float = SIGNIFICANCE_LEVEL,
    power: float = TARGET_POWER,
) -> int:
    """Questions needed to detect a net drop of ``drop`` with ``power`` (Connor 1987).

    ``discordance`` below ``drop`` is raised to ``drop`` (every flip a loss): a net drop
    of d needs at least a share d of the questions to flip.
    """
    if not 0 < drop <= 1:
        raise ValueError(f"drop must be in (0, 1], got {drop}")
    if not 0 < discordance <= 1:
        raise ValueError(f"discordance must be in (0, 1], got {discordance}")
    if not 0 < alpha / 2 < 0.5:  # the smallest float halves to 0: no z for it
        raise ValueError(f"alpha must be in (0, 1) and over 5e-324, got {alpha}")
    psi = max(discordance, drop)
    z_alpha = -NormalDist().inv_cdf(alpha / 2)  # = z(1 - alpha/2); 1 - alpha/2 may round to 1
    z_power = NormalDist().inv_cdf(power)
    root = z_alpha * math.sqrt(psi) + z_power * math.sqrt(max(psi - drop * drop, 0.0))
    square = drop * drop
    if square >= sys.float_info.min:  # a normal float: the quotient may still overflow
        needed = root * root / square
        if math.isfinite(needed):
            return math.ceil(needed - 1e-9)
    # A drop under ~1e-154: its square underflows, so divide in exact rationals.
    return math.ceil(Fraction(root) ** 2 / Fraction(drop) ** 2)


@dataclass(frozen=True, slots=True)
class DropPower:
    """What a set can say about one threshold (e.g. the top-1 drop allowed)."""

    metric: str  # "top1_hit_rate" or "top3_hit_rate"
    threshold: float
    #: The threshold in questions (threshold * n), and the net losses that are a regression.
    threshold_questions: float
    regression_losses: int
    #: Questions needed to detect a drop of ``threshold`` with ``TARGET_POWER``.
    questions_needed: int
    #: The discordance actually assumed (``max(discordance, threshold)``).
    discordance: float

    @property
    def finer_than_one_question(self) -> bool:
        return self.threshold_questions < 1 - 1e-9


@dataclass(frozen=True, slots=True)
class SetPower:
    """What a set of ``questions`` answered questions can detect (see the module doc)."""

    questions: int
    #: How much one question moves a hit rate (1/n; 0 for an empty set).
    one_question: float
    alpha: float
    #: Fewest one-way discordant pairs that are significant, and that as a rate change
    #: (``None`` when the set has fewer questions than that).
    significant_flips: int
    smallest_significant_change: float | None
    power: float
    thresholds: tuple[DropPower, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "questions": self.questions,
            "one_question": self.one_question,
            "alpha": self.alpha,
            "significant_flips": self.significant_flips,
            "smallest_significant_change": self.smallest_significant_change,
            "power": self.power,
            "thresholds": [
                {
                    "metric": t.metric,
                    "threshold": t.threshold,
                    "threshold_questions": t.threshold_questions,
                    "regression_losses": t.regression_losses,
                    "questions_needed": t.questions_needed,
                    "discordance": t.discordance,
                    "enough_questions": self.questions >= t.questions_needed,
                }
                for t in self.thresholds
            ],
        }


def allowed_losses(threshold: float, count: int) -> int:
    """The largest net number of lost questions that is not a regression (drop <= t)."""
    return math.floor(threshold * count + 1e-9)


def set_power(
    questions: int,
    max_top1_drop: float,
    max_top3_drop: float,
    *,
    discordance: float = DEFAULT_DISCORDANCE,
    alpha: float = SIGNIFICANCE_LEVEL,
    power: float = TARGET_POWER,
) -> SetPower:
    """The numbers behind a set's size for the two regression thresholds."""
    if questions < 0:
        raise ValueError(f"questions must be >= 0, got {questions}")
    flips = fewest_significant_flips(alpha)
    thresholds = tuple(
        DropPower(
            metric=metric,
            threshold=t,
            threshold_questions=t * questions,
            regression_losses=allowed_losses(t, questions) + 1,
            questions_needed=questions_needed(t, discordance, alpha=alpha, power=power),
            discordance=max(discordance, t),
        )
        for metric, t in ((TOP1_HIT_RATE, max_top1_drop), (TOP3_HIT_RATE, max_top3_drop))
        if t > 0
    )
    return SetPower(
        questions=questions,
        one_question=1 / questions if questions else 0.0,
        alpha=alpha,
        significant_flips=flips,
        smallest_significant_change=flips / questions if questions >= flips else None,
        power=power,
        thresholds=thresholds,
    )


def paired_counts(pairs: list[tuple[bool, bool]]) -> tuple[int, int, int]:
    """(wins, losses, ties) over (baseline_hit, current_hit) pairs."""
    wins = sum(1 for before, now in pairs if now and not before)
    losses = sum(1 for before, now in pairs if before and not now)
    return wins, losses, len(pairs) - wins - losses
