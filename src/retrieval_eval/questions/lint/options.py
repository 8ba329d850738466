"""Lint options and their defaults (importable without numpy: the CLI reads them)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from retrieval_eval.errors import InputError
from retrieval_eval.stats.mcnemar import DEFAULT_DISCORDANCE, DEFAULT_MAX_DROP
from retrieval_eval.version import install_extra

#: Overlap at or above this suggests MATCH, below it GAP. Calibrated on the shipped example
#: set with ``overlap.best_cutoff`` (19 of its 21 answerable questions on their labelled
#: side; its highest GAP outside the two outliers is at 0.350, its lowest MATCH at 0.364).
DEFAULT_MATCH_CUTOFF = 0.36
#: Distinct retrievers whose stored runs the run checks need.
DEFAULT_MIN_RETRIEVERS = 2
#: Shingle (Jaccard) similarity from which two documents are near-duplicates: on the
#: example corpus its two edited copies score 0.22 and 0.29, every other pair 0.14 or less.
DEFAULT_NEAR_DUPLICATE_THRESHOLD = 0.2


@dataclass(frozen=True, slots=True)
class LintOptions:
    match_cutoff: float = DEFAULT_MATCH_CUTOFF
    near_duplicate_threshold: float = DEFAULT_NEAR_DUPLICATE_THRESHOLD
    max_top1_drop: float = DEFAULT_MAX_DROP
    max_top3_drop: float = DEFAULT_MAX_DROP
    #: Assumed share of questions that flip between two compared runs (power planning).
    discordance: float = DEFAULT_DISCORDANCE
    min_retrievers: int = DEFAULT_MIN_RETRIEVERS

    def check(self) -> None:
        """``InputError`` naming the first option out of range."""
        for name, value in (
            ("match cut-off", self.match_cutoff),
            ("near-duplicate threshold", self.near_duplicate_threshold),
            ("max top-1 drop", self.max_top1_drop),
            ("max top-3 drop", self.max_top3_drop),
        ):
            if not 0 <= value <= 1:
                raise InputError(f"the {name} must be between 0 and 1, got {value:g}")
        if not 0 < self.discordance <= 1:
            raise InputError(f"the discordance must be in (0, 1], got {self.discordance:g}")
        if self.near_duplicate_threshold == 0:
            raise InputError("the near-duplicate threshold must be above 0")


def require_lint_dependencies() -> None:
    """``InputError`` saying how to install what linting needs, when it is missing."""
    modules = {"numpy": "numpy", "Stemmer": "PyStemmer"}
    missing = [name for m, name in modules.items() if importlib.util.find_spec(m) is None]
    if missing:
        raise InputError(f"linting a set needs {', '.join(missing)}: {install_extra('lint')}")
