"""Hand-worked cases that pin the scoring protocol (DESIGN.md, "Scoring protocol")."""

from __future__ import annotations

import pytest

from retrieval_eval.errors import InputError
from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.failures import FailureKind, RetrievalFailure
from retrieval_eval.records.outcome import Form
from retrieval_eval.retrievers.documents import distinct_documents, document_id
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.scoring.protocol import normalize_ks, request_limit, score_question

KS = (1, 3)


def question(*expected: str, qid: str = "q1", hard_class: str | None = None) -> GoldenQuestion:
    return GoldenQuestion(qid, "what?", Form.MATCH, tuple(expected), hard_class=hard_class)


def items(*ids: str) -> list[RetrievedItem]:
    return [RetrievedItem(i) for i in ids]


def score(q: GoldenQuestion, ids: list[str] | None, *, sep: str = "", limit: int = 12, **kw):
    response = None if ids is None else items(*ids)
    return score_question(
        q,
        response,
        ks=kw.pop("ks", KS),
        limit=limit,
        separator=sep,
        latency_ms=kw.pop("latency_ms", 1.0),
        error=kw.pop("error", None),
    )


def test_request_limit_is_deepest_k_times_overfetch() -> None:
    assert request_limit((1, 3), 4) == 12  # the methodology's defaults
    assert request_limit((1, 3, 10), 4) == 40
    assert request_limit((1,), 2) == 6  # 3 is always scored, so the deepest k is 3
    with pytest.raises(InputError, match="overfetch"):
        request_limit((1, 3), 0)
    with pytest.raises(InputError, match="limit of 1000"):
        request_limit((1, 3, 500), 4)


def test_ks_always_include_one_and_three() -> None:
    assert normalize_ks([10, 5, 5]) == (1, 3, 5, 10)
    with pytest.raises(InputError, match="k=0"):
        normalize_ks([0])


def test_document_id_cuts_at_the_last_separator() -> None:
    assert document_id("doc#1#7", "#") == "doc#1"
    assert document_id("doc", "#") == "doc"
    assert document_id("doc::2", "::") == "doc"
    assert document_id("#7", "#") == "#7"  # no document part: the id is kept whole
    assert document_id("doc#7", "") == "doc#7"  # no separator: ids are documents


def test_chunk_duplicates_collapse_so_top3_spans_three_documents() -> None:
    ids = ["a#0", "a#1", "b#0", "a#2", "c#4", "d#0"]
    outcome = score(question("c"), ids, sep="#")
    assert outcome.raw_ids == tuple(ids)
    assert outcome.ranked_document_ids == ("a", "b", "c", "d")
    assert outcome.hits == {1: False, 3: True}
    # Without the separator the same response is six distinct "documents" and c is 5th.
    plain = score(question("c"), ids)
    assert plain.hits == {1: False, 3: False}


def test_overfetch_keeps_three_documents_when_the_top_is_one_document() -> None:
    # The first eight results are chunks of one document; only overfetching reaches b, c.
    ids = [f"a#{i}" for i in range(8)] + ["b#0", "a#8", "c#0", "d#0"]
    outcome = score(question("c"), ids, sep="#")
    assert outcome.ranked_document_ids[:3] == ("a", "b", "c")
    assert outcome.top3_hit is True
    assert outcome.top1_hit is False
    assert not outcome.underfilled
    # Asking for only 3 results (no overfetch) would have scored a miss.
    shallow = score(question("c"), ids[:3], sep="#", limit=3)
    assert shallow.top3_hit is False


def test_underfilled_when_a_full_limit_holds_too_few_documents() -> None:
    ids = [f"a#{i}" for i in range(10)] + ["b#0", "b#1"]
    outcome = score(question("b"), ids, sep="#")
    assert outcome.ranked_document_ids == ("a", "b")
    assert outcome.underfilled
    assert outcome.top3_hit
    # A short response is not underfilled: the retriever simply had no more to give.
    assert not score(question("b"), ["a#0", "b#0"], sep="#").underfilled


def test_multi_target_labels_any_expected_document_counts() -> None:
    q = question("x", "c", "y")
    assert score(q, ["a", "b", "c", "x"]).hits == {1: False, 3: True}
    assert score(q, ["y", "b"]).hits == {1: True, 3: True}
    assert score(q, ["a", "b", "d", "x"]).hits == {1: False, 3: False}


def test_no_answer_question_is_a_hit_only_when_nothing_comes_back() -> None:
    q = question()
    assert score(q, []).hits == {1: True, 3: True}
    returned = score(q, ["a"])
    assert returned.hits == {1: False, 3: False}
    assert returned.ranked_document_ids == ("a",)


@pytest.mark.parametrize(
    ("ids", "breach"),
    [
        (["", ""], "result 1 has an empty document id"),  # not a correct "nothing found"
        (["a", " ", "b"], "result 2 has a blank document id"),
        (["a", "x" * 5000], "result 2 has a document id of 5,000 bytes"),
    ],
)
def test_answers_that_break_the_contract_are_errors_never_repaired(ids, breach) -> None:
    for q in (question(), question("b")):
        outcome = score(q, ids)
        assert outcome.error is not None and outcome.error.kind == "contract"
        assert breach in outcome.error.message
        assert outcome.hits == {} and outcome.raw_ids == () and not outcome.answered


def test_an_error_is_not_a_miss() -> None:
    failure = RetrievalFailure(FailureKind.TIMEOUT, "deadline of 10s exceeded")
    error = score(question("a"), None, error=failure, latency_ms=10_000.0)
    miss = score(question("a"), ["b", "c", "d"])
    assert error.error == failure and not error.answered
    assert error.hits == {} and error.top1_hit is None and error.top3_hit is None
    assert error.ranked_document_ids == ()
    assert miss.answered and miss.top1_hit is False and miss.top3_hit is False
    # An empty response to a no-answer question is a hit; a failure to answer is not.
    assert score(question(), None, error=failure).top1_hit is None


def test_results_beyond_the_limit_are_a_contract_error_not_cut() -> None:
    outcome = score(question("z"), ["a", "b", "z"], limit=2)
    assert outcome.error is not None and outcome.error.kind == "contract"
    assert outcome.error.message == "3 results for limit 2"
    assert outcome.raw_ids == () and outcome.top3_hit is None


def test_deeper_ks_are_scored_over_distinct_documents() -> None:
    ids = ["a#0", "a#1", "b#0", "c#0", "d#0", "e#0"]
    outcome = score(question("e"), ids, sep="#", ks=(1, 3, 5), limit=20)
    assert outcome.hits == {1: False, 3: False, 5: True}
    assert distinct_documents(ids, "#") == ("a", "b", "c", "d", "e")
