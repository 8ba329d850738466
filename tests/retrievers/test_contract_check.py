"""The contract checker against real servers on 127.0.0.1: our SDK (passes), and servers
built from the raw generated servicer that each break one rule (fail, naming it); the
rules themselves on hand-made answers. (The command, ``reval check-retriever``:
``test_contract_check_cli.py``; the servers: ``support.broken_retriever``.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.broken_retriever import ALL_CHECKS, Faults, Ranked

from retrieval_eval.retrievers.contract.check import check_contract
from retrieval_eval.retrievers.contract.limits import MAX_QUESTION_BYTES
from retrieval_eval.retrievers.contract.probes import MAX_SET_PROBES, probe_questions
from retrieval_eval.retrievers.contract.rules import (
    CheckResult,
    judge_ids,
    judge_limit,
    judge_order,
    truncated_limits,
)
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import serve

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "retriever_plugin"


def test_rules_judge_answers_and_name_the_offender() -> None:
    tie = [
        RetrievedItem("a", 2.0),
        RetrievedItem("a", 2.0),
        RetrievedItem("b"),
        RetrievedItem("c", 1),
    ]
    rising = [RetrievedItem("a", 1.0), RetrievedItem("b"), RetrievedItem("c", 1.5)]
    assert judge_order([("q", 5, tie)]).passed  # ties, unscored items and duplicates are fine
    assert judge_order([("q", 5, [RetrievedItem("a")])]).detail.startswith("no scores returned")
    failure = judge_order([("q", 5, tie), ("r", 3, rising)])
    assert (failure.passed, failure.detail) == (
        False,
        "score rises from 1 to 1.5 at rank 3 (question 'r', limit 3); results must be best first",
    )
    assert judge_limit([("q", 1, tie[:1]), ("r", 2, rising)], (1, 2)).detail == (
        "3 results for limit 2 (question 'r')"
    )
    nothing = judge_limit([("q", 5, [])], (5,))
    assert (nothing.passed, nothing.warning) == (True, True)
    assert nothing.detail.endswith("no probe exercised truncation (no results at all)")
    blank = judge_ids([("q", 5, [RetrievedItem("a"), RetrievedItem("   ")])])
    assert (blank.passed, blank.detail) == (
        False,
        "result 2 has a blank document id ('   ', only white space) (question 'q')",
    )
    empty = judge_ids([("q", 5, [RetrievedItem("")])])
    assert empty.detail == "result 1 has an empty document id (question 'q')"
    assert judge_ids([("q", 5, tie)]).detail == "no empty, blank or oversized ids in 4 results"


def test_truncation_is_exercised_only_where_a_larger_limit_got_more() -> None:
    def answer(question: str, limit: int, count: int) -> tuple[str, int, list[RetrievedItem]]:
        return (question, limit, [RetrievedItem(f"d{i}") for i in range(count)])

    sparse = [answer("q", 1, 0), answer("q", 5, 0), answer("r", 1, 1), answer("r", 5, 1)]
    assert truncated_limits(sparse) == []  # r had one result at both: nothing was cut
    warned = judge_limit(sparse, (1, 5))
    assert (warned.passed, warned.warning) == (True, True)
    assert "no question had more results than a smaller limit allowed" in warned.detail
    cut = [answer("q", 1, 1), answer("q", 5, 5), answer("q", 12, 7), answer("r", 5, 5)]
    assert truncated_limits(cut) == [1, 5]  # r's 5 at limit 5 alone proves nothing
    judged = judge_limit(cut, (1, 5, 12))
    assert (judged.passed, judged.warning) == (True, False)
    assert judged.detail.endswith("got 1, 5, 7, 5); cut at limit 1, 5")
    many = [answer(f"q{i}", limit, min(limit, i)) for i in range(4) for limit in (1, 5)]
    assert "got 0 to 3 results in 8 answers" in judge_limit(many, (1, 5)).detail


def test_probe_questions_from_a_set_skip_what_the_contract_forbids() -> None:
    texts = ["a", "", "   ", "\u3000", "a", "b", "x" * (MAX_QUESTION_BYTES + 1), "c"]
    assert probe_questions(texts) == ("a", "b", "c")
    many = [f"question {i}" for i in range(50)]
    assert probe_questions(many) == tuple(many[:MAX_SET_PROBES])


def failed(results: list[CheckResult]) -> dict[str, str]:
    return {r.name: r.detail for r in results if not r.passed}


async def test_the_python_sdk_server_passes_every_check() -> None:
    with serve(Ranked()) as handle:
        results = await check_contract(f"grpc://{handle.address}")
    assert [r.name for r in results] == ALL_CHECKS
    assert failed(results) == {}
    details = {r.name: r.detail for r in results}
    assert details["describe"] == "identifier 'ranked', version '3'"
    assert details["limit"].endswith("got 1, 5, 12, 1, 5, 12); cut at limit 1, 5")
    assert details["empty-question"].startswith("INVALID_ARGUMENT: question must not be empty")


async def test_a_ready_made_client_is_checked_and_left_open() -> None:
    from retrieval_eval.retrievers.client.grpc_client import GrpcRetrieverClient

    with serve(Ranked()) as handle:
        async with GrpcRetrieverClient(handle.address, display="mine") as client:
            results = await check_contract(client, timeout_s=2)
            assert failed(results) == {}
            assert results[0].detail == "connected to mine"
            assert (await client.describe()).identifier == "ranked"  # still usable


async def test_a_correct_raw_server_passes(broken_server) -> None:
    assert failed(await check_contract(broken_server(Faults()))) == {}


@pytest.mark.parametrize(
    ("faults", "expected"),
    [
        (Faults(ignore_limit=True), {"limit": "20 results for limit 1"}),
        (Faults(rising_scores=True), {"rank-order": "score rises from 0 to 1 at rank 2"}),
        (Faults(empty_id=True), {"document-ids": "result 2 has an empty document id"}),
        (
            Faults(accept_empty_question=True),
            {"empty-question": "expected INVALID_ARGUMENT, got 5 results"},
        ),
        (
            Faults(accept_blank_question=True),
            {"empty-question": "refuses an empty question but not a blank one"},
        ),
        (
            Faults(accept_zero_limit=True),
            {"zero-limit": "expected INVALID_ARGUMENT, got 0 results"},
        ),
        (
            Faults(accept_out_of_range=True),
            {
                "over-limit": "expected INVALID_ARGUMENT, got 1001 results",
                "long-question": "expected INVALID_ARGUMENT, got 5 results",
            },
        ),
        (Faults(empty_identifier=True), {"describe": "Describe answered with an empty identifier"}),
        (Faults(health="NOT_SERVING"), {"health": "grpc.health.v1 reports NOT_SERVING"}),
        (
            Faults(health=None, reflection=False),
            {"health": "UNIMPLEMENTED"},
        ),
    ],
)
async def test_each_broken_rule_fails_its_own_check(
    broken_server, faults: Faults, expected: dict[str, str]
) -> None:
    problems = failed(await check_contract(broken_server(faults)))
    assert set(problems) == set(expected)
    for name, fragment in expected.items():
        assert fragment in problems[name]


async def test_a_server_slower_than_the_deadline_gets_deadline_exceeded(broken_server) -> None:
    results = await check_contract(broken_server(Faults(sleep_s=0.3)), timeout_s=2)
    deadline = next(r for r in results if r.name == "deadline")
    assert deadline.passed and deadline.detail.startswith("DEADLINE_EXCEEDED after")
    assert failed(results) == {}


async def test_an_unreachable_target_fails_only_reachable() -> None:
    with serve(Ranked()) as handle:
        address = handle.address
    results = await check_contract(f"grpc://{address}", timeout_s=0.5)
    assert [(r.name, r.passed) for r in results] == [("reachable", False)]
    assert f"grpc://{address} not reachable within 0.5 s" in results[0].detail


async def test_token_is_sent_when_given() -> None:
    with serve(Ranked(), token="s3cret") as handle:
        good = await check_contract(f"grpc://{handle.address}", token="s3cret")
        bad = await check_contract(f"grpc://{handle.address}")
    assert failed(good) == {}
    problems = failed(bad)
    assert problems["describe"].startswith("UNAUTHENTICATED")
    assert problems["limit"].startswith("Retrieve(")  # every Retrieve probe is refused
    assert {"health", "reflection"}.isdisjoint(problems)  # those stay open


async def test_a_plugin_is_served_in_process_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    results = await check_contract("test-keywords")
    assert failed(results) == {}
    assert results[0].detail.startswith("connected to test-keywords (served on 127.0.0.1:")
