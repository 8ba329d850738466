"""The contract checker against real servers on 127.0.0.1: our SDK (passes), and servers
built from the raw generated servicer that each break one rule (fail, naming it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from retrieval_eval.cli.main import cli
from retrieval_eval.records import RetrieverDescription
from retrieval_eval.retrievers.contract.check import (
    MAX_SET_PROBES,
    PROBE_QUESTIONS,
    CheckResult,
    check_contract,
    probe_questions,
)
from retrieval_eval.retrievers.contract.limits import MAX_QUESTION_BYTES
from retrieval_eval.retrievers.contract.rules import (
    judge_ids,
    judge_limit,
    judge_order,
    truncated_limits,
)
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import serve
from retrieval_eval.text import is_blank
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

ALL_CHECKS = [
    "reachable",
    "health",
    "describe",
    "reflection",
    "limit",
    "rank-order",
    "document-ids",
    "empty-question",
    "zero-limit",
    "over-limit",
    "long-question",
    "deadline",
]
PLUGIN_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "retriever_plugin"


class Ranked:
    """A well-behaved retriever: 30 documents, best first."""

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        return [RetrievedItem(f"doc-{i}", 100.0 - i) for i in range(min(limit, 30))]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("ranked", version="3")


@dataclass(frozen=True)
class Faults:
    ignore_limit: bool = False
    rising_scores: bool = False
    empty_id: bool = False
    accept_empty_question: bool = False
    accept_blank_question: bool = False  # refuses "" but answers " \t\u3000 "
    results_cap: int = 10_000  # a sparse retriever has at most this many results
    accept_zero_limit: bool = False
    accept_out_of_range: bool = False  # limit over 1000, question over 16 KiB
    empty_identifier: bool = False
    health: str | None = "SERVING"  # None: no health service at all
    reflection: bool = True
    reflection_service: bool = True  # False: no reflection service at all
    reflection_internal: int = 0  # the first N reflection streams end INTERNAL
    sleep_s: float = 0.0


class BrokenServicer(pb_grpc.RetrieverServicer):
    """The raw generated servicer, with the faults asked for."""

    def __init__(self, faults: Faults) -> None:
        self.faults = faults

    def Retrieve(self, request: pb.RetrieveRequest, context: grpc.ServicerContext):
        f = self.faults
        if not request.question and not f.accept_empty_question:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "empty question")
        if request.question and is_blank(request.question) and not f.accept_blank_question:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "blank question")
        if request.limit == 0 and not f.accept_zero_limit:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "limit 0")
        too_long = len(request.question.encode()) > 16384
        if (request.limit > 1000 or too_long) and not f.accept_out_of_range:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "out of range")
        time.sleep(f.sleep_s)
        count = 20 if f.ignore_limit else min(request.limit, f.results_cap)
        results = []
        for i in range(count):
            score = float(i) if f.rising_scores else float(100 - i)
            doc = "" if f.empty_id and i == 1 else f"doc-{i}"
            results.append(pb.RetrievedItem(document_id=doc, score=score))
        return pb.RetrieveResponse(results=results)

    def Describe(self, request: pb.DescribeRequest, context: grpc.ServicerContext):
        return pb.DescribeResponse(identifier="" if self.faults.empty_identifier else "broken")


class FlakyReflection(reflection.ReflectionServicer):
    """Ends its first streams INTERNAL, as grpc.aio reports a stream it lost a race on."""

    def __init__(self, names: list[str], failures: int) -> None:
        super().__init__(names)
        self.failures = failures

    def ServerReflectionInfo(self, request_iterator, context):
        if self.failures > 0:
            self.failures -= 1
            context.abort(grpc.StatusCode.INTERNAL, "Internal error from Core")
        yield from super().ServerReflectionInfo(request_iterator, context)


@pytest.fixture
def broken_server() -> Iterator:
    servers: list[grpc.Server] = []

    def start(faults: Faults) -> str:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        pb_grpc.add_RetrieverServicer_to_server(BrokenServicer(faults), server)
        names = [pb.DESCRIPTOR.services_by_name["Retriever"].full_name]
        if faults.health is not None:
            servicer = health.HealthServicer()
            servicer.set("", health_pb2.HealthCheckResponse.ServingStatus.Value(faults.health))
            health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
        if not faults.reflection:
            names = ["grpc.health.v1.Health"]
        if faults.reflection_service:
            servicer = FlakyReflection(
                [*names, reflection.SERVICE_NAME], faults.reflection_internal
            )
            reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"grpc://127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(None)


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


# --- the CLI ------------------------------------------------------------------------------


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_passes_and_exits_zero() -> None:
    with serve(Ranked()) as handle:
        result = run("check-retriever", f"grpc://{handle.address}")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [f"PASS {c}" for c in ALL_CHECKS]
    assert lines[-1] == f"all {len(ALL_CHECKS)} checks passed"


def test_cli_names_the_broken_check_and_exits_three(broken_server) -> None:
    result = run("check-retriever", broken_server(Faults(ignore_limit=True)))
    assert result.exit_code == 3
    assert "FAIL limit: 20 results for limit 1 (question " in result.output
    assert "PASS rank-order:" in result.output
    assert result.output.splitlines()[-1] == "1 of 12 checks failed: limit"


def test_cli_json_output(broken_server) -> None:
    import json

    target = broken_server(Faults(rising_scores=True))
    result = run("check-retriever", target, "--format", "json")
    assert result.exit_code == 3
    document = json.loads(result.output)
    assert (document["target"], document["passed"]) == (target, False)
    assert [c["name"] for c in document["checks"] if not c["passed"]] == ["rank-order"]


def test_cli_unreachable_exits_three() -> None:
    with serve(Ranked()) as handle:
        address = handle.address
    result = run("check-retriever", f"grpc://{address}", "--timeout", "0.3")
    assert result.exit_code == 3
    assert result.output.startswith(f"FAIL reachable: grpc://{address} not reachable")


def test_cli_token_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("H2_CHECK_TOKEN", "tok")
    with serve(Ranked(), token="tok") as handle:
        ok = run("check-retriever", f"grpc://{handle.address}", "--token-env", "H2_CHECK_TOKEN")
    assert ok.exit_code == 0, ok.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check-retriever", "nope"], "unknown retriever 'nope'"),
        (["check-retriever", "grpc://h"], "has no port"),
        (["check-retriever", "grpc://h:1", "--token-env", "H2_UNSET"], "H2_UNSET is not set"),
    ],
)
def test_cli_bad_target_or_option_exits_two(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from retrieval_eval.cli.main import main

    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("faults", "why"),
    [
        (Faults(reflection_service=False), "UNIMPLEMENTED"),
        (Faults(reflection=False), "retrieval_eval.v1.Retriever not listed"),
    ],
)
def test_reflection_is_recommended_not_required(broken_server, faults: Faults, why: str) -> None:
    """A server without reflection passes, with a WARN line; health stays a check."""
    target = broken_server(faults)
    result = CliRunner().invoke(cli, ["check-retriever", target, "--timeout", "5"])
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.output.splitlines() if " reflection: " in x]
    assert line.startswith("WARN reflection: ") and why in line and "recommended" in line
    assert result.output.rstrip().endswith("checks passed (1 with a warning)")
    document = CliRunner().invoke(cli, ["check-retriever", target, "--format", "json"])
    assert document.exit_code == 0
    assert '"warning": true' in document.output
    unhealthy = CliRunner().invoke(
        cli, ["check-retriever", broken_server(Faults(reflection_service=False, health=None))]
    )
    assert unhealthy.exit_code == 3
    assert "FAIL health: UNIMPLEMENTED" in unhealthy.output


@pytest.mark.parametrize(
    ("failures", "line"), [(2, "PASS reflection: lists"), (3, "WARN reflection: INTERNAL")]
)
def test_reflection_asks_again_after_internal(broken_server, failures: int, line: str) -> None:
    """An INTERNAL reflection stream is asked again (grpc.aio can mask the real status so)."""
    result = CliRunner().invoke(
        cli, ["check-retriever", broken_server(Faults(reflection_internal=failures))]
    )
    assert result.exit_code == 0, result.output
    assert any(x.startswith(line) for x in result.output.splitlines()), result.output


# --- probes from a set: a sparse retriever ----------------------------------------------


SET_YAML = """\
reval_question_set: 1
name: probes
questions:
  - {id: q2, question: first real question, form: MATCH, expected_document_ids: [doc-0]}
  - {id: q3, question: second real question, form: GAP, expected_document_ids: [doc-1]}
"""


def test_a_sparse_retriever_warns_that_no_probe_exercised_truncation(broken_server) -> None:
    target = broken_server(Faults(results_cap=1))  # one result, whatever the limit
    result = run("check-retriever", target)
    assert result.exit_code == 0, result.output
    [line] = [x for x in result.output.splitlines() if " limit: " in x]
    assert line.startswith("WARN limit: never more results than the limit")
    assert "no probe exercised truncation" in line and "(--set)" in line
    assert result.output.splitlines()[-1] == "all 12 checks passed (1 with a warning)"


def test_set_questions_are_the_probes(broken_server, tmp_path: Path) -> None:
    """With --set the probes are the set's questions: the same server that left the limit
    unexercised is now seen cutting."""
    seen: list[str] = []

    class Recording(Ranked):
        def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
            seen.append(question)
            count = 8 if question.startswith("first") else 0
            return [RetrievedItem(f"doc-{i}", 10.0 - i) for i in range(min(limit, count))]

    path = tmp_path / "probes.yaml"
    path.write_text(SET_YAML, encoding="utf-8")
    with serve(Recording()) as handle:
        plain = run("check-retriever", f"grpc://{handle.address}")
        first = len(seen)
        probed = run("check-retriever", f"grpc://{handle.address}", "--set", str(path))
    assert set(seen[:first]) >= set(PROBE_QUESTIONS)
    assert [q for q in seen[first:] if "real" in q] == ["first real question"] * 3 + [
        "second real question"
    ] * 3
    assert "WARN limit:" in plain.output
    assert probed.exit_code == 0, probed.output
    assert "PASS limit: never more results than the limit (limits 1, 5, 12; got 1, 5, 8, " in (
        probed.output
    )
    assert "cut at limit 1, 5" in probed.output


def test_set_without_an_allowed_question_is_bad_input(broken_server, tmp_path: Path) -> None:
    """A set whose every question is over the contract's limit leaves nothing to ask."""
    path = tmp_path / "long.yaml"
    long = "x" * (MAX_QUESTION_BYTES + 1)
    text = (
        SET_YAML.split("  - {id: q2")[0]
        + f"  - {{id: q1, question: {long}, form: GAP, expected_document_ids: []}}\n"
    )
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["check-retriever", broken_server(Faults()), "--set", str(path)]
    )
    assert result.exit_code == 2
    assert "'probes' holds no question the contract allows" in result.output
