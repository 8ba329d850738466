"""The settings tried: method x RRF ``k`` x member weights.

Fused rankings do not change when every weight is multiplied by the same positive number,
so weight vectors are kept up to scale (the largest weight is 1) and duplicates dropped.
The first setting is plain RRF (k = 60, equal weights): selection breaks ties by grid
order, so a tuned setting has to beat plain RRF on the training folds to be chosen.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from retrieval_eval.retrievers.fusion.methods import PLAIN_RRF, FusionMethod, FusionParams

DEFAULT_RRF_KS = (60, 1, 5, 10, 20, 40, 100)
#: Relative weight levels per member (up to scale: 1:4 ... 4:1 for two members).
DEFAULT_WEIGHT_LEVELS = (1.0, 0.25, 0.5, 2.0, 4.0)


def weight_vectors(members: int, levels: Sequence[float]) -> list[tuple[float, ...]]:
    """Distinct weight vectors up to scale, equal weights first; each scaled so that its
    largest weight is 1."""
    seen: dict[tuple[float, ...], None] = {}
    for combo in itertools.product(levels, repeat=members):
        top = max(combo)
        if top <= 0:
            continue
        seen.setdefault(tuple(round(w / top, 12) for w in combo), None)
    return list(seen)


def settings_grid(
    members: int,
    *,
    rrf_ks: Sequence[int] = DEFAULT_RRF_KS,
    weight_levels: Sequence[float] = DEFAULT_WEIGHT_LEVELS,
    methods: Sequence[FusionMethod] = tuple(FusionMethod),
) -> list[FusionParams]:
    """Every setting, plain RRF first. Equal weights are written as ``()``."""
    grid: dict[FusionParams, None] = {PLAIN_RRF: None}
    vectors = weight_vectors(members, weight_levels)
    for method in methods:
        ks = rrf_ks if method is FusionMethod.RRF else (PLAIN_RRF.k,)
        for k, weights in itertools.product(ks, vectors):
            equal = len(set(weights)) == 1
            grid.setdefault(FusionParams(method, k, () if equal else weights), None)
    return list(grid)
