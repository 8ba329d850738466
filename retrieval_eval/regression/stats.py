"""The exact McNemar test on paired hit/miss outcomes (the arithmetic lives in the bottom
layer, ``retrieval_eval.mcnemar``, shared with set linting)."""

from __future__ import annotations

from retrieval_eval.mcnemar import SIGNIFICANCE_LEVEL, mcnemar_exact

__all__ = ["SIGNIFICANCE_LEVEL", "mcnemar_exact", "paired_counts"]


def paired_counts(pairs: list[tuple[bool, bool]]) -> tuple[int, int, int]:
    """(wins, losses, ties) over (baseline_hit, current_hit) pairs."""
    wins = sum(1 for before, now in pairs if now and not before)
    losses = sum(1 for before, now in pairs if before and not now)
    return wins, losses, len(pairs) - wins - losses
