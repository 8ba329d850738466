"""Metric keys: the closed vocabulary of metric families and the one way to name a metric.

A key names a family and its cut-off: the methodology's two headline rates have names of
their own (``top1_hit_rate``, ``top3_hit_rate``), every other hit rate and the rank metrics
are ``family@k``. Keys stay plain strings wherever they are stored or printed (reports,
the run store, JSON), so this module changes no format; it is the bottom layer, below
even the records, so that every layer names metrics through it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class MetricFamily(StrEnum):
    """The metrics reval computes. A key names a family and its cut-off (``metric_key``):
    the methodology's two headline rates have names of their own, every other hit rate
    and the rank metrics are ``family@k``. Keys are plain strings in reports and the store.
    """

    TOP1_HIT_RATE = "top1_hit_rate"
    TOP3_HIT_RATE = "top3_hit_rate"
    HIT_RATE = "hit_rate"
    MRR = "mrr"
    RECALL = "recall"
    #: nDCG on binary labels (gain 1 for an expected document). Graded nDCG is the IR
    #: measure ``nDCG@k`` (``scoring.measures``); the two names differ even ignoring case.
    BINARY_NDCG = "binary_ndcg"


#: The headline families and their cut-offs.
_HEADLINE = {MetricFamily.TOP1_HIT_RATE: 1, MetricFamily.TOP3_HIT_RATE: 3}


@dataclass(frozen=True, slots=True)
class MetricKey:
    """A parsed metric key: its family and cut-off (1 and 3 for the headline rates)."""

    family: MetricFamily
    k: int

    @property
    def is_hit_rate(self) -> bool:
        return self.family in _HEADLINE or self.family is MetricFamily.HIT_RATE

    def __str__(self) -> str:
        return metric_key(self.family, self.k)


def metric_key(family: MetricFamily, k: int | None = None) -> str:
    """The canonical key of ``family`` at ``k``: ``top1_hit_rate``, ``hit_rate@5``,
    ``mrr@10``. A hit rate at 1 or 3 is its headline name; a headline family takes no
    ``k`` or its own. ``ValueError`` for a missing or non-positive ``k``, or a headline
    family at another k."""
    if family in _HEADLINE:
        if k not in (None, _HEADLINE[family]):
            raise ValueError(f"{family.value} is the hit rate at {_HEADLINE[family]}, not {k}")
        return family.value
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"{family.value} needs a cut-off k >= 1, got {k!r}")
    if family is MetricFamily.HIT_RATE and k in (1, 3):
        return MetricFamily.TOP1_HIT_RATE.value if k == 1 else MetricFamily.TOP3_HIT_RATE.value
    return f"{family.value}@{k}"


def parse_metric_key(key: str) -> MetricKey | None:
    """The family and cut-off of a key ``metric_key`` makes; ``None`` for anything else
    (a latency figure, a typo, ``hit_rate@1`` instead of ``top1_hit_rate``)."""
    match = _METRIC_KEY.match(key)
    if match is None:
        return None
    depth = match["k"]
    try:
        family = MetricFamily(match["name"])
        canonical = metric_key(family, None if depth is None else int(depth))
    except ValueError:
        return None
    if canonical != key:  # e.g. hit_rate@1, top1_hit_rate@1
        return None
    return MetricKey(family, _HEADLINE.get(family, 0) if depth is None else int(depth))


#: The keys there are, for messages that refuse another.
KEY_FORMS = "top1_hit_rate, top3_hit_rate, hit_rate@K, mrr@K, recall@K or binary_ndcg@K"

#: The two headline keys (the methodology's top-1 and top-3 hit rates).
TOP1_HIT_RATE = metric_key(MetricFamily.TOP1_HIT_RATE)
TOP3_HIT_RATE = metric_key(MetricFamily.TOP3_HIT_RATE)

_METRIC_KEY = re.compile(r"^(?P<name>[a-z_0-9]+?)(?:@(?P<k>[1-9][0-9]{0,5}))?$")
_FAMILY_ORDER = {family: order for order, family in enumerate(MetricFamily)}


def metric_sort_key(name: str) -> tuple[int, int, str]:
    """Top-1, top-3, then hit_rate@k, mrr@k, recall@k, binary_ndcg@k by k; unknown ones last."""
    parsed = parse_metric_key(name)
    if parsed is None:
        return (99, 0, name)
    return (_FAMILY_ORDER[parsed.family], parsed.k, name)
