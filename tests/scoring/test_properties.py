"""Properties of the fast scoring paths against their plain definitions, on random cases.

The fast paths: the contract check on the ids joined once, the duplicate collapse through
a set, each label's rank found by one bounded search, the shared hits mappings, and the
aggregation by rows (outcomes reduced to distinct rows, rank figures summed as integers).
Each is compared with the straightforward definition, written out here independently:
rankings with repeated documents and chunk ids, labels listed twice, no labels, errors,
overfetched answers and every cutoff. The aggregates must equal, bit for bit, the
previous definition (``math.fsum`` of the per-question figures over the group, divided by
its size) and agree with the plain one to 1e-12.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st
from support.scoring_cases import CASES, documents_or_chunks, plain_breach, plain_documents

from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.metrics import GroupMetrics, NoAnswerStats
from retrieval_eval.records.outcome import UNCLASSIFIED, Form, QuestionOutcome
from retrieval_eval.retrievers.contract.limits import (
    MAX_CHUNK_ID_BYTES,
    MAX_ID_BYTES,
    response_breach,
)
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.scoring.metrics import rank_metrics, summarize_with_breakdowns
from retrieval_eval.scoring.protocol import normalize_ks, score_question, target_ranks
from retrieval_eval.scoring.tally import Tally

DOCS = [f"d{i}" for i in range(8)] + ["x#y"]  # a document id holding the separator
LIMIT = 60

answers = st.one_of(st.none(), st.lists(documents_or_chunks(DOCS), max_size=LIMIT))
labels = st.lists(st.sampled_from([*DOCS, "elsewhere"]), max_size=5)
cutoffs = st.lists(st.sampled_from([1, 2, 3, 4, 5, 10, 20]), max_size=4)


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[QuestionOutcome], tuple[int, ...], str]:
    ks = normalize_ks(draw(cutoffs))
    separator = draw(st.sampled_from(["#", ""]))
    outcomes = []
    for i in range(draw(st.integers(0, 30))):
        answer = draw(answers)
        question = GoldenQuestion(
            f"q{i}",
            "text",
            draw(st.sampled_from(list(Form))),
            tuple(draw(labels)),
            hard_class=draw(st.sampled_from([None, "", "near-duplicate", UNCLASSIFIED])),
        )
        failure = RetrievalFailure(FailureKind.TIMEOUT, "deadline") if answer is None else None
        ranking = None if answer is None else Ranking(tuple(answer))
        outcomes.append(
            score_question(
                question, ranking, ks=ks, limit=LIMIT, separator=separator,
                latency_ms=1.0, error=failure,
            )
        )  # fmt: skip
    return outcomes, ks, separator


def plain_figures(outcome: QuestionOutcome, k: int) -> dict[str, float]:
    relevant = set(outcome.expected_document_ids)
    top = outcome.ranked_document_ids[:k]
    ranks = [rank for rank, doc in enumerate(top) if doc in relevant]
    dcg = sum(1 / math.log2(rank + 2) for rank in ranks)
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(k, len(relevant))))
    return {
        f"mrr@{k}": 1 / (ranks[0] + 1) if ranks else 0.0,
        f"recall@{k}": len(ranks) / len(relevant),
        f"binary_ndcg@{k}": dcg / ideal,
    }


def plain_group(outcomes: list[QuestionOutcome], ks: tuple[int, ...]) -> GroupMetrics:
    answered = [o for o in outcomes if o.error is None]
    scored = [o for o in answered if o.expected_document_ids]
    values: dict[str, float] = {}
    for k in ks:
        hits = [
            bool(set(o.ranked_document_ids[:k]) & set(o.expected_document_ids))
            if o.expected_document_ids
            else not o.ranked_document_ids
            for o in answered
        ]
        assert hits == [o.hits[k] for o in answered]
        name = "top1_hit_rate" if k == 1 else "top3_hit_rate" if k == 3 else f"hit_rate@{k}"
        if answered:
            values[name] = sum(hits) / len(answered)
    for k in ks:
        for name in (f"mrr@{k}", f"recall@{k}", f"binary_ndcg@{k}"):
            if scored:
                values[name] = math.fsum(plain_figures(o, k)[name] for o in scored) / len(scored)
    no_answer = [o for o in answered if not o.expected_document_ids]
    empty = sum(not o.ranked_document_ids for o in no_answer)
    return GroupMetrics(
        count=len(answered),
        errors=len(outcomes) - len(answered),
        values=values,
        no_answer=NoAnswerStats(len(no_answer), empty, len(no_answer) - empty)
        if no_answer
        else None,
    )


def previous_means(outcomes: list[QuestionOutcome], ks: tuple[int, ...]) -> dict[str, float]:
    """The definition the aggregates had before rows: fsum of the per-question figures."""
    scored = [o for o in outcomes if o.error is None and o.expected_document_ids]
    if not scored:
        return {}
    figures = [rank_metrics(o.ranked_document_ids, o.expected_document_ids, ks) for o in scored]
    return {name: math.fsum(f[name] for f in figures) / len(scored) for name in figures[0]}


def assert_group(ours: GroupMetrics, outcomes: list[QuestionOutcome], ks: tuple[int, ...]) -> None:
    plain = plain_group(outcomes, ks)
    assert (ours.count, ours.errors, ours.no_answer) == (plain.count, plain.errors, plain.no_answer)
    assert set(ours.values) == set(plain.values)
    for name, value in plain.values.items():
        assert math.isclose(ours.values[name], value, rel_tol=0, abs_tol=1e-12), name
    for name, value in previous_means(outcomes, ks).items():
        assert ours.values[name] == value, name  # bit for bit
    for name, estimate in ours.intervals.items():
        assert estimate.rate == plain.values[name]


@CASES
@given(runs())
def test_aggregates_and_breakdowns_equal_the_plain_definitions(
    case: tuple[list[QuestionOutcome], tuple[int, ...], str],
) -> None:
    outcomes, ks, separator = case
    for o in outcomes:
        if o.error is None:
            assert o.ranked_document_ids == plain_documents(o.raw_ids, separator)
    overall, by_form, by_class = summarize_with_breakdowns(outcomes, ks)
    assert_group(overall, outcomes, ks)
    forms = sorted({o.form.value for o in outcomes})
    classes = sorted({o.hard_class or UNCLASSIFIED for o in outcomes})
    assert list(by_form) == forms and list(by_class) == classes
    for form in forms:
        assert_group(by_form[form], [o for o in outcomes if o.form.value == form], ks)
    for name in classes:
        group = [o for o in outcomes if (o.hard_class or UNCLASSIFIED) == name]
        assert_group(by_class[name], group, ks)


@CASES
@given(
    st.lists(st.sampled_from(DOCS), unique=True, max_size=30),
    st.lists(st.sampled_from([*DOCS, "elsewhere"]), max_size=12),
    st.integers(1, 40),
)
def test_target_ranks_are_the_ranks_of_the_labels_found(
    ranked: list[str], expected: list[str], depth: int
) -> None:
    plain = [rank for rank, doc in enumerate(ranked[:depth]) if doc in set(expected)]
    assert target_ranks(tuple(ranked), tuple(expected), depth) == plain
    assert target_ranks(ranked, iter(expected), depth) == plain


@CASES
@given(st.lists(st.floats(0, 1), max_size=20), st.lists(st.integers(1, 10**6), max_size=20))
def test_row_sums_are_the_exactly_rounded_sum(values: list[float], counts: list[int]) -> None:
    """What ``Tally`` relies on: fsum is the exact sum rounded once, and so is int / int."""
    pairs = list(zip(values, counts, strict=False))
    exact = sum((Fraction(v) * c for v, c in pairs), Fraction(0))
    assert math.fsum(v for v, c in pairs for _ in range(min(c, 50))) == float(
        sum((Fraction(v) * min(c, 50) for v, c in pairs), Fraction(0))
    )
    if pairs:
        scale = max(v.as_integer_ratio()[1] for v, _ in pairs)
        numerator = sum(v.as_integer_ratio()[0] * (scale // v.as_integer_ratio()[1]) * c
                        for v, c in pairs)  # fmt: skip
        assert numerator / scale == float(exact)


def test_a_tally_of_no_outcomes_has_no_rates() -> None:
    tally = Tally([], normalize_ks([]))
    overall = tally.overall()
    assert (overall.count, overall.errors, dict(overall.values)) == (0, 0, {})
    assert tally.by_form() == {} and tally.by_class() == {}


ids = st.one_of(
    st.sampled_from(["", " ", "\u3000", "\x1c", "\x00", "a\x00", "\x00\x00", "a b", " a", "x"]),
    st.text(max_size=3),
    st.builds(
        lambda c, n: c * n,
        st.sampled_from(["a", "é", "\U0001f600"]),
        st.integers(MAX_ID_BYTES // 4 - 2, MAX_ID_BYTES + 2),
    ),
)
chunks = st.one_of(
    st.none(),
    st.just(""),
    st.builds(
        lambda c, n: c * n,
        st.sampled_from(["c", "\U0001f600"]),
        st.integers(MAX_CHUNK_ID_BYTES // 4 - 2, MAX_CHUNK_ID_BYTES + 2),
    ),
)


@CASES
@given(st.lists(st.tuples(ids, chunks), max_size=12), st.integers(1, 12))
def test_the_contract_check_is_the_first_breach_by_rank(
    results: list[tuple[str, str | None]], limit: int
) -> None:
    """The first breach, results judged one by one (a result's id before its chunk)."""
    docs = tuple(doc for doc, _ in results)
    with_chunks = any(chunk is not None for _, chunk in results)
    chunk_ids = tuple(chunk for _, chunk in results) if with_chunks else ()
    ranking = Ranking(docs, chunk_ids=chunk_ids)
    assert response_breach(ranking, limit) == plain_breach(docs, chunk_ids, limit)
