"""The fusion definition, by hand-worked examples (every expected number is worked out
in the comments from the formulas in ``retrievers.fusion.methods``)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from retrieval_eval.retrievers.documents import distinct_scored
from retrieval_eval.retrievers.fusion.methods import (
    FusionMethod,
    FusionParams,
    FusionScoreError,
    fuse,
    min_max,
)
from retrieval_eval.retrievers.protocol import RetrievedItem

RRF = FusionParams()
COMBSUM = FusionParams(FusionMethod.COMBSUM)
COMBMNZ = FusionParams(FusionMethod.COMBMNZ)


def ranked(*docs: str) -> list[tuple[str, float | None]]:
    return [(d, None) for d in docs]


def order(fused) -> list[str]:
    return [f.document_id for f in fused]


def test_rrf_sums_reciprocal_ranks_from_one_with_k_60() -> None:
    # a: 1/61 + 1/63, b: 1/61 + 1/62, c: 1/63, d: 1/62  ->  b > a > d > c
    fused = fuse([ranked("a", "b", "c"), ranked("b", "d", "a")], RRF, 10)
    assert order(fused) == ["b", "a", "d", "c"]
    scores = {f.document_id: f.score for f in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63, abs=0, rel=1e-15)
    assert scores["b"] == pytest.approx(1 / 61 + 1 / 62, abs=0, rel=1e-15)
    assert scores["c"] == 1 / 63
    assert [f.members for f in fused] == [2, 2, 1, 1]


def test_rrf_exact_ties_go_to_member_order_then_best_rank() -> None:
    # x: 1/61 + 1/62 and y: 1/62 + 1/61 are equal (exact-rounded sums); both have best
    # rank 1; x has it in member 0, y in member 1 -> x first.
    fused = fuse([ranked("x", "y"), ranked("y", "x")], RRF, 10)
    assert order(fused) == ["x", "y"]
    assert fused[0].score == fused[1].score
    fused = fuse([ranked("y", "x"), ranked("x", "y")], RRF, 10)
    assert order(fused) == ["y", "x"]


def test_rrf_ties_on_score_break_by_better_best_rank() -> None:
    # k = 1: u = 1/2 (rank 1 in A), t = 1/2 (rank 1 in B), v = 1/4 + 1/4 = 1/2 (rank 3
    # in both), s = 1/3 (rank 2 in A), w = 1/3 (rank 2 in B).
    # Score ties {u, t, v}: best rank 1 beats 3, then member order u (A) before t (B).
    fused = fuse([ranked("u", "s", "v"), ranked("t", "w", "v")], FusionParams(k=1), 10)
    assert order(fused) == ["u", "t", "v", "s", "w"]
    assert {f.score for f in fused[:3]} == {0.5}
    assert [f.best_rank for f in fused] == [1, 1, 3, 2, 2]


def test_rrf_weights_scale_each_members_terms() -> None:
    # weights (2, 1): a = 2/61 + 1/62, b = 2/62 + 1/61; a - b = 1/61 - 1/62 > 0.
    # Unweighted the two tie exactly and member order puts a first too; reversed weights
    # (1, 2) make b = 1/62 + 2/61 the winner.
    a_first = fuse([ranked("a", "b"), ranked("b", "a")], FusionParams(weights=(2, 1)), 10)
    assert order(a_first) == ["a", "b"]
    assert a_first[0].score == pytest.approx(float(Fraction(2, 61) + Fraction(1, 62)), rel=1e-15)
    b_first = fuse([ranked("a", "b"), ranked("b", "a")], FusionParams(weights=(1, 2)), 10)
    assert order(b_first) == ["b", "a"]


def test_zero_weight_member_contributes_documents_but_no_score() -> None:
    fused = fuse([ranked("a"), ranked("b")], FusionParams(weights=(1, 0)), 10)
    assert order(fused) == ["a", "b"]
    assert fused[1].score == 0.0


def test_fused_ranking_is_cut_to_limit() -> None:
    fused = fuse([ranked("a", "b", "c"), ranked("d", "e", "f")], RRF, 4)
    # a, d: 1/61 (a first: member 0); b, e: 1/62 -> a, d, b, e
    assert order(fused) == ["a", "d", "b", "e"]


def test_members_are_collapsed_exactly_as_the_protocol_does() -> None:
    # Member A returns chunks; with separator "#" d1#1, d1#2 collapse to d1 at rank 1 and
    # d2 moves up to rank 2 (not 3). Its score is the first occurrence's (0.9, not 0.95).
    items = [RetrievedItem("d1#1", 0.9), RetrievedItem("d1#2", 0.95), RetrievedItem("d2", 0.5)]
    assert distinct_scored(items, "#") == [("d1", 0.9), ("d2", 0.5)]
    # "#7" has no document part: kept whole, as the protocol keeps it.
    assert distinct_scored([RetrievedItem("#7", 1.0)], "#") == [("#7", 1.0)]
    fused = fuse([distinct_scored(items, "#"), ranked("x", "d2")], RRF, 10)
    assert {f.document_id: f.score for f in fused}["d2"] == 2 / 62


def test_combsum_min_max_normalises_each_member() -> None:
    # A: a 10, b 8, c 0 -> 1, 0.8, 0.    B: c 5, b 4.5, e 0 -> 1, 0.9, 0.
    # combsum: b 1.7, a 1, c 1, e 0; a and c tie at 1, both best rank 1: member order a.
    a = [("a", 10.0), ("b", 8.0), ("c", 0.0)]
    b = [("c", 5.0), ("b", 4.5), ("e", 0.0)]
    fused = fuse([a, b], COMBSUM, 10)
    assert order(fused) == ["b", "a", "c", "e"]
    assert [f.score for f in fused] == pytest.approx([1.7, 1.0, 1.0, 0.0], abs=1e-15)


def test_combmnz_multiplies_by_the_number_of_members_that_returned_it() -> None:
    # Same input: b 1.7 * 2 = 3.4, c (0 + 1) * 2 = 2, a 1 * 1 = 1, e 0.
    a = [("a", 10.0), ("b", 8.0), ("c", 0.0)]
    b = [("c", 5.0), ("b", 4.5), ("e", 0.0)]
    fused = fuse([a, b], COMBMNZ, 10)
    assert order(fused) == ["b", "c", "a", "e"]
    assert [f.score for f in fused] == pytest.approx([3.4, 2.0, 1.0, 0.0], abs=1e-15)


def test_combsum_weights() -> None:
    # weights (1, 3): a = 1*1 = 1, b = 1*0 + 3*1 = 3, c = 3*0 = 0.
    fused = fuse(
        [[("a", 2.0), ("b", 1.0)], [("b", 7.0), ("c", -1.0)]],
        FusionParams(FusionMethod.COMBSUM, weights=(1, 3)),
        10,
    )
    assert [(f.document_id, f.score) for f in fused] == [("b", 3.0), ("a", 1.0), ("c", 0.0)]


def test_min_max_with_equal_scores_gives_one_to_each() -> None:
    assert min_max(0, [("a", 3.0), ("b", 3.0)]) == [1.0, 1.0]
    assert min_max(0, [("a", -2.5)]) == [1.0]
    assert min_max(0, []) == []
    assert min_max(0, [("a", 4.0), ("b", 2.0), ("c", 3.0)]) == [1.0, 0.0, 0.5]


@pytest.mark.parametrize("bad", [None, math.nan, math.inf])
def test_score_methods_refuse_missing_or_non_finite_scores(bad) -> None:
    with pytest.raises(FusionScoreError, match="'b' has") as caught:
        fuse([[("a", 1.0)], [("a", 1.0), ("b", bad)]], COMBSUM, 10)
    assert caught.value.member == 1
    # RRF ignores scores, so the same rankings fuse.
    assert order(fuse([[("a", 1.0)], [("a", 1.0), ("b", bad)]], RRF, 10)) == ["a", "b"]


def test_wrong_number_of_weights_is_refused() -> None:
    with pytest.raises(ValueError, match="3 weights for 2 members"):
        fuse([ranked("a"), ranked("b")], FusionParams(weights=(1, 1, 1)), 10)


def test_parameters_have_a_canonical_text() -> None:
    assert FusionParams().describe() == "rrf k=60"
    assert FusionParams(k=10, weights=(1, 2.5)).describe() == "rrf k=10 weights=1,2.5"
    assert FusionParams(FusionMethod.COMBMNZ, weights=(0.5, 1)).describe() == (
        "combmnz weights=0.5,1"
    )
