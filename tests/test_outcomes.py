"""Outcomes held by column (``retrieval_eval.outcomes``) read back equal, field by field,
to the outcomes that were packed: built by hand, by the coordinator and by the store."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.outcomes.compact import CompactOutcomes
from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.failures import SKIPPED_MEMBER_NOTE, FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form, QuestionOutcome
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.scoring.metrics import summarize_with_breakdowns
from retrieval_eval.scoring.protocol import score_question
from retrieval_eval.store.store import RunStore

FIELDS = [f.name for f in dataclasses.fields(QuestionOutcome)]


def assert_same(packed: Sequence[QuestionOutcome], plain: Sequence[QuestionOutcome]) -> None:
    """Field by field (with the field's name in the message), then as whole sequences."""
    assert len(packed) == len(plain)
    for i, (got, want) in enumerate(zip(packed, plain, strict=True)):
        for name in FIELDS:
            a, b = getattr(got, name), getattr(want, name)
            assert a == b, f"question {i}, field {name}: {a!r} != {b!r}"
            assert type(a) is type(b) or name == "hits", (i, name, type(a), type(b))
        assert dict(got.hits) == dict(want.hits)
    assert packed == plain and plain == packed
    assert list(packed) == list(plain)


ids = st.text(min_size=1, max_size=6)
scores = st.none() | st.floats(allow_nan=False)
outcomes = st.builds(
    QuestionOutcome,
    question_id=ids,
    form=st.sampled_from(Form),
    hard_class=st.none() | st.text(max_size=5),
    expected_document_ids=st.lists(ids, max_size=3).map(tuple),
    raw_ids=st.lists(st.sampled_from(["d1", "d1#2", "d2", "é"]) | ids, max_size=8).map(tuple),
    ranked_document_ids=st.lists(ids, max_size=4).map(tuple),
    hits=st.dictionaries(st.integers(1, 10), st.booleans(), max_size=3),
    latency_ms=st.none() | st.floats(allow_nan=False),
    error=st.none() | st.builds(RetrievalFailure, st.sampled_from(FailureKind), st.text()),
    underfilled=st.booleans(),
    raw_scores=st.lists(scores, max_size=8).map(tuple),
    notes=st.lists(st.text(max_size=8), max_size=2).map(tuple),
    question_text=st.none() | st.text(max_size=10),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(outcomes, max_size=12), st.randoms(use_true_random=False))
def test_any_outcomes_read_back_equal_in_any_order(
    plain: list[QuestionOutcome], rng: random.Random
) -> None:
    assert_same(CompactOutcomes.of(plain), plain)
    # Added in one order, read in another (the coordinator adds them as answers arrive).
    order = list(range(len(plain)))
    rng.shuffle(order)
    builder = CompactOutcomes.builder()
    rows = {}
    for i in order:
        rows[i] = builder.add(plain[i])
    packed = builder.build(rows[i] for i in range(len(plain)))
    assert_same(packed, plain)
    assert_same(packed[1:-1], plain[1:-1])
    if plain:
        assert packed[-1] == plain[-1] and packed[0] == plain[0]
    assert list(packed.failures()) == [q.error for q in plain if q.error is not None]
    assert list(packed.all_notes()) == [q.notes for q in plain if q.notes]
    assert packed.underfilled_count() == sum(q.underfilled for q in plain)


@settings(max_examples=40, deadline=None)
@given(st.lists(outcomes, max_size=12), st.randoms(use_true_random=False))
def test_outcomes_read_their_question_from_the_set_they_index(
    plain: list[QuestionOutcome], rng: random.Random
) -> None:
    """Given the run's questions, the builder keeps an index, not the question's fields."""
    questions = [
        GoldenQuestion(o.question_id, o.question_text or "?", o.form, o.expected_document_ids,
                       o.hard_class)
        for o in plain
    ]  # fmt: skip
    plain = [
        dataclasses.replace(o, question_text=q.question)
        for o, q in zip(plain, questions, strict=True)
    ]
    order = list(range(len(plain)))
    rng.shuffle(order)
    builder = CompactOutcomes.builder(CompactQuestions.of(questions))
    rows = {i: builder.add(plain[i], i) for i in order}
    assert_same(builder.build(rows[i] for i in range(len(plain))), plain)


def test_a_builder_with_questions_refuses_an_outcome_without_its_index() -> None:
    q = GoldenQuestion("q1", "what?", Form.MATCH, ("d1",))
    builder = CompactOutcomes.builder((q,))
    outcome = QuestionOutcome("q1", Form.MATCH, None, ("d1",), question_text="what?")
    for index in (None, 1, -1):
        with pytest.raises(ValueError, match="no question index"):
            builder.add(outcome, index)
    assert len(builder) == 0
    builder.add(outcome, 0)
    assert list(builder.build()) == [outcome]


def test_a_built_view_keeps_its_length_when_more_is_added() -> None:
    builder = CompactOutcomes.builder()
    first = QuestionOutcome("q1", Form.MATCH, None, ("d1",), ("d1",), ("d1",), {1: True})
    builder.add(first)
    built = builder.build()
    builder.add(dataclasses.replace(first, question_id="q2"))
    assert len(built) == 1 and list(built) == [first]
    assert len(builder.build()) == 2


class Answers:
    """Chunk ids with duplicates, scores with gaps, notes, no answer, failures."""

    def __init__(self) -> None:
        self.asked: dict[str, int] = {}

    async def retrieve(self, question: str, limit: int) -> Ranking:
        n = int(question.rsplit(" ", 1)[-1])
        self.asked[question] = limit
        if n % 7 == 3:
            raise ValueError(f"question {n} failed")
        if n % 5 == 4:
            return Ranking((), ())
        per_doc = 6 if n % 8 == 0 else 3  # 6 chunks a document: 2 documents, underfilled
        found = tuple(f"doc{(n + i // per_doc) % 9}#{i}" for i in range(limit - n % 3))
        given = tuple(None if i % 4 == 1 else float(n - i) for i in range(len(found)))
        notes = (f"{SKIPPED_MEMBER_NOTE}b: timeout: late",) if n % 13 == 0 else ()
        return Ranking(found, given if n % 2 else (None,) * len(found), notes=notes)

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("answers", "1", chunk_separator="#")


def question_set(compact: bool = False) -> GoldenQuestionSet:
    classes = (None, "near-duplicate", "prose-free")
    questions = tuple(
        GoldenQuestion(
            f"q{n}",
            f"question {n}",
            (Form.MATCH, Form.GAP, Form.UNLABELLED)[n % 3],
            () if n % 6 == 2 else (f"doc{(n + 1) % 9}", f"doc{n % 4}")[: 1 + n % 2],
            classes[n % 3],
        )
        for n in range(120)
    )
    return GoldenQuestionSet("answers", CompactQuestions.of(questions) if compact else questions)


def plain_outcomes(
    qs: GoldenQuestionSet, packed: Sequence[QuestionOutcome]
) -> list[QuestionOutcome]:
    """The same answers scored one by one into plain objects (latency: the measured one)."""
    retriever = Answers()
    plain = []
    for q, measured in zip(qs.questions, packed, strict=True):
        try:
            ranking = asyncio.run(retriever.retrieve(q.question, 12))
            error = None
        except ValueError as e:  # the in-process adapter's wording of an exception
            failure = f"INTERNAL: ValueError: {e}"
            ranking, error = None, RetrievalFailure(FailureKind.INTERNAL, failure)
        plain.append(
            score_question(q, ranking, ks=(1, 3), limit=12, separator="#",
                           latency_ms=measured.latency_ms, error=error)
        )  # fmt: skip
    return plain


@pytest.mark.parametrize("compact", [False, True], ids=["tuple-set", "compact-set"])
def test_a_run_by_column_equals_the_run_scored_one_by_one(tmp_path, compact: bool) -> None:  # type: ignore[no-untyped-def]
    qs = question_set(compact)
    (run,) = evaluate([qs], [Answers()], EvalOptions(concurrency=5))
    assert isinstance(run.questions, CompactOutcomes)
    plain = plain_outcomes(qs, run.questions)
    kinds = {q.error.kind for q in plain if q.error is not None}
    assert kinds == {FailureKind.INTERNAL}
    assert any(not q.expected_document_ids and q.error is None for q in plain)
    assert any(q.raw_scores and None in q.raw_scores for q in plain)
    assert any(q.notes for q in plain) and any(q.underfilled for q in plain)
    assert_same(run.questions, plain)
    metrics, by_form, by_class = summarize_with_breakdowns(plain, (1, 3))
    assert (run.metrics, run.by_form, run.by_hard_class) == (metrics, by_form, by_class)
    assert run.error_count == sum(q.error is not None for q in plain)
    assert run.underfilled_count == sum(q.underfilled for q in plain)
    assert run.skipped_members == {"b": sum(1 for q in plain if q.notes and q.error is None)}

    with RunStore.open(f"sqlite:///{tmp_path / 'runs.sqlite'}") as store:
        loaded = store.get(store.save(run))
    assert isinstance(loaded.questions, CompactOutcomes)
    assert_same(loaded.questions, plain)
    assert dataclasses.replace(loaded, run_id=None) == run
