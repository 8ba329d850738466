"""The scoring's fast paths against their plain definitions, on random cases: the
contract check's passes over the ids (white space looked for in the ids joined, lengths
measured together), the ranks of the labels (one label, many, repeated, none), and the
outcome filled slot by slot, equal to the one its constructor builds."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.scoring_cases import CASES, documents_or_chunks, plain_breach, plain_documents

from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.retrievers.contract.limits import (
    MAX_CHUNK_ID_BYTES,
    MAX_ID_BYTES,
    response_breach,
)
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.scoring.protocol import normalize_ks, score_answer, score_question

#: Every white-space character str.isspace knows, some that look like it and are not,
#: and plain letters, ASCII and not.
SPACES = [c for c in map(chr, range(0x3001)) if c.isspace()]
LETTERS = ["a", "Z", "0", "#", "-", "é", "\u200b", "\ufeff", "\U0001f600", "\x00"]


short_ids = st.text(st.sampled_from(SPACES + LETTERS), max_size=6)
long_ids = st.builds(
    lambda c, n: c * n,
    st.sampled_from(["a", "é", "\U0001f600", " "]),
    st.integers(MAX_ID_BYTES // 4 - 2, MAX_ID_BYTES + 2),
)
many_ids = st.lists(st.text(st.sampled_from(LETTERS[:6]), min_size=1, max_size=40), max_size=80)


@CASES
@given(
    st.lists(short_ids | long_ids, max_size=12) | many_ids,
    st.booleans(),
    st.integers(1, 100),
)
def test_the_contract_check_finds_the_first_breach_whatever_the_ids_hold(
    ids: list[str], with_chunks: bool, limit: int
) -> None:
    chunk_room = MAX_CHUNK_ID_BYTES // 4
    chunks = tuple(
        None if i % 3 == 0 else "c" * (chunk_room + (i % 2) * (MAX_CHUNK_ID_BYTES + 1))
        for i in range(len(ids))
    ) if with_chunks else ()  # fmt: skip
    ranking = Ranking(tuple(ids), chunk_ids=chunks)
    assert response_breach(ranking, limit) == plain_breach(tuple(ids), chunks, limit)


DOCS = [f"d{i}" for i in range(12)] + ["x#y"]
results = documents_or_chunks(DOCS)
labels = st.lists(st.sampled_from([*DOCS, "elsewhere"]), max_size=12).map(tuple)


@CASES
@given(
    st.lists(results, max_size=40).map(tuple),
    labels,
    st.sampled_from(["#", ""]),
    st.lists(st.sampled_from([1, 2, 3, 5, 10, 20]), max_size=3).map(normalize_ks),
)
def test_label_ranks_are_those_of_the_plain_definition(
    raw: tuple[str, ...], expected: tuple[str, ...], separator: str, ks: tuple[int, ...]
) -> None:
    """Repeated documents, chunk ids, a label listed twice, one label, none, many."""
    q = GoldenQuestion("q", "text", Form.GAP, expected, hard_class=None)
    outcome, first, found = score_answer(q, Ranking(raw), ks, 40, separator, 1.0, (), None, None)
    documents = plain_documents(raw, separator)
    assert outcome.ranked_document_ids == documents
    plain_found = [documents.index(t) for t in expected if t in documents]
    assert found == plain_found
    if expected:
        assert first == min([*plain_found, ks[-1]])
    else:
        assert first == (-1 if not documents else ks[-1])
    for k in ks:
        want = (not documents) if not expected else any(rank < k for rank in plain_found)
        assert outcome.hits[k] is want


@CASES
@given(
    st.lists(results, max_size=40).map(tuple),
    labels,
    st.sampled_from(["#", ""]),
    st.one_of(st.none(), st.floats(0, 1e4)),
    st.lists(st.one_of(st.none(), st.floats(-1, 1)), max_size=40),
    st.sampled_from([None, "near-duplicate"]),
)
def test_an_answered_outcome_is_the_one_its_constructor_builds(
    raw: tuple[str, ...],
    expected: tuple[str, ...],
    separator: str,
    latency: float | None,
    scores: list[float | None],
    hard_class: str | None,
) -> None:
    q = GoldenQuestion("q7", "what is it", Form.MATCH, expected, hard_class=hard_class)
    aligned = tuple((scores + [None] * len(raw))[: len(raw)]) if scores else ()
    ks = normalize_ks([5])
    outcome = score_question(
        q, Ranking(raw, scores=aligned), ks=ks, limit=len(raw) or 1, separator=separator,
        latency_ms=latency, error=None, notes=("a note",),
    )  # fmt: skip
    documents = plain_documents(raw, separator)
    built = QuestionOutcome(
        question_id="q7",
        form=Form.MATCH,
        hard_class=hard_class,
        expected_document_ids=expected,
        raw_ids=raw,
        ranked_document_ids=documents,
        hits=MappingProxyType(
            {
                k: not documents if not expected else bool(set(documents[:k]) & set(expected))
                for k in ks
            }
        ),
        latency_ms=latency,
        error=None,
        underfilled=len(raw) >= (len(raw) or 1) and len(documents) < 5,
        raw_scores=aligned if any(s is not None for s in aligned) else (),
        notes=("a note",),
        question_text="what is it",
    )
    assert outcome == built and repr(outcome) == repr(built)
    for field in dataclasses.fields(QuestionOutcome):  # every slot filled, with its value
        ours, theirs = getattr(outcome, field.name), getattr(built, field.name)
        assert ours == theirs and type(ours) is type(theirs), field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.latency_ms = 2.0  # type: ignore[misc]
