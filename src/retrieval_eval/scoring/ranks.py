"""One question's rank figures (MRR@k, recall@k and nDCG@k on binary labels) and the
metrics' names.

They depend on two things only: the ranks of the distinct expected documents found among
the deepest k's best, and how many distinct documents are expected. ``figures`` takes
exactly those, so that questions sharing them share one computation (``tally``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence

from retrieval_eval.metric_keys import MetricFamily, metric_key
from retrieval_eval.retrievers.contract.limits import MAX_LIMIT

#: The rank metrics, in the order ``figures`` computes them at each k.
RANK_FAMILIES = (MetricFamily.MRR, MetricFamily.RECALL, MetricFamily.BINARY_NDCG)

#: 1 / log2(rank + 2) for every rank a response can hold (the contract caps its size).
DISCOUNTS = tuple(1.0 / math.log2(rank + 2) for rank in range(MAX_LIMIT))
#: Ideal DCG with n relevant documents in the first n ranks: prefix sums of discounts.
IDEAL = tuple(itertools.accumulate(DISCOUNTS, initial=0.0))


def hit_rate_key(k: int) -> str:
    """Canonical name of the hit rate at k: the methodology's names for 1 and 3."""
    return metric_key(MetricFamily.HIT_RATE, k)


def rank_names(ks: Iterable[int]) -> list[str]:
    """The keys of ``figures``' values, in its order."""
    return [metric_key(family, k) for k in ks for family in RANK_FAMILIES]


def figures(positions: Sequence[int], total: int, ks: Sequence[int]) -> list[float]:
    """[mrr@k, recall@k, binary_ndcg@k for each k in ascending ``ks``] of a question whose
    distinct expected documents (``total`` of them, at least one) were found at
    ``positions`` (0-based, ascending; only those within the deepest k count). One pass
    over the cutoffs; the discounts and ideal gains are read from tables."""
    values: list[float] = []
    found = 0
    dcg = 0.0
    for k in ks:
        while found < len(positions) and positions[found] < k:
            dcg += DISCOUNTS[positions[found]]
            found += 1
        values.append(1.0 / (positions[0] + 1) if found else 0.0)
        values.append(found / total)
        values.append(dcg / IDEAL[min(k, total, len(DISCOUNTS))])
    return values
