"""Metric keys: one family enum, one builder, one parser; stored keys stay the same strings."""

from __future__ import annotations

import pytest

from retrieval_eval import MetricFamily, metric_key, parse_metric_key
from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE, MetricKey, metric_sort_key
from retrieval_eval.scoring.metrics import rank_metrics
from retrieval_eval.scoring.ranks import hit_rate_key


@pytest.mark.parametrize(
    "family, k, key",
    [
        (MetricFamily.TOP1_HIT_RATE, None, "top1_hit_rate"),
        (MetricFamily.TOP3_HIT_RATE, 3, "top3_hit_rate"),
        (MetricFamily.HIT_RATE, 1, "top1_hit_rate"),
        (MetricFamily.HIT_RATE, 3, "top3_hit_rate"),
        (MetricFamily.HIT_RATE, 5, "hit_rate@5"),
        (MetricFamily.MRR, 10, "mrr@10"),
        (MetricFamily.RECALL, 1, "recall@1"),
        (MetricFamily.BINARY_NDCG, 100, "binary_ndcg@100"),
    ],
)
def test_keys_are_the_stored_strings_and_parse_back(
    family: MetricFamily, k: int | None, key: str
) -> None:
    built = metric_key(family, k)
    assert built == key and type(built) is str  # plain strings in JSON, YAML and the store
    parsed = parse_metric_key(key)
    assert parsed is not None and str(parsed) == key
    assert parsed.k == (k or {"top1_hit_rate": 1, "top3_hit_rate": 3}[key])
    assert parsed.is_hit_rate is (family in {
        MetricFamily.TOP1_HIT_RATE, MetricFamily.TOP3_HIT_RATE, MetricFamily.HIT_RATE
    })  # fmt: skip


@pytest.mark.parametrize(
    "key",
    ["hit_rate@1", "hit_rate@3", "top5_hit_rate", "top1_hit_rate@1", "mrr", "mrr@0",
     "mrr@01", "mrr@x", "MRR@10", "p95_ms", "", "ndcg@10 ", "ndcg@10", "precision@5"],
)  # fmt: skip
def test_anything_else_is_not_a_key(key: str) -> None:
    assert parse_metric_key(key) is None
    assert metric_sort_key(key)[0] == 99  # unknown names sort last


@pytest.mark.parametrize(
    "family, k",
    [(MetricFamily.MRR, None), (MetricFamily.MRR, 0), (MetricFamily.HIT_RATE, True),
     (MetricFamily.TOP1_HIT_RATE, 3), (MetricFamily.TOP3_HIT_RATE, 1)],
)  # fmt: skip
def test_builder_refuses_a_missing_or_wrong_cutoff(family: MetricFamily, k: object) -> None:
    with pytest.raises(ValueError, match=family.value):
        metric_key(family, k)  # type: ignore[arg-type]


def test_every_key_the_scorer_writes_parses() -> None:
    """The scorer names its metrics through the builder: each parses to its own family."""
    ks = (1, 3, 5, 10)
    names = list(rank_metrics(["a", "b"], ["b"], ks)) + [hit_rate_key(k) for k in ks]
    parsed = [parse_metric_key(n) for n in names]
    assert all(p is not None for p in parsed)
    assert {p.family for p in parsed if p is not None} == set(MetricFamily)
    assert (TOP1_HIT_RATE, TOP3_HIT_RATE) == ("top1_hit_rate", "top3_hit_rate")
    assert sorted(names, key=metric_sort_key)[:4] == [
        "top1_hit_rate", "top3_hit_rate", "hit_rate@5", "hit_rate@10"
    ]  # fmt: skip
    assert MetricKey(MetricFamily.BINARY_NDCG, 5).__str__() == "binary_ndcg@5"
