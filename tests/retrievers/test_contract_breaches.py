"""Answers that break the contract, from a real misbehaving gRPC server: each makes that
question an error of kind ``contract`` naming the breach (never a miss, never repaired),
and ``check-retriever`` fails on the same breach."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from support.grpc_servers import NO_PORT_SHARING

from retrieval_eval.errors import RetrieverContractError, RetrieverUnavailable
from retrieval_eval.evaluation.coordinator import EvalOptions, evaluate
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form
from retrieval_eval.retrievers.client.grpc_client import ClientOptions, GrpcRetrieverClient
from retrieval_eval.retrievers.contract.check import check_contract
from retrieval_eval.retrievers.contract.limits import (
    MAX_CHUNK_ID_BYTES,
    MAX_ID_BYTES,
    MAX_RESPONSE_BYTES,
)
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

FAST = ClientOptions(timeout_s=5, max_attempts=4, initial_backoff_s=0.01, max_backoff_s=0.05)
Answer = Callable[[pb.RetrieveRequest], list[pb.RetrievedItem]]

BREACHES: dict[str, tuple[Answer, str]] = {
    "only empty ids": (
        lambda r: [pb.RetrievedItem(document_id="")] * 2,
        "result 1 has an empty document id",
    ),
    "a blank id after a good one": (
        lambda r: [pb.RetrievedItem(document_id="d1"), pb.RetrievedItem(document_id="  ")],
        "result 2 has a blank document id ('  ', only white space)",
    ),
    "an id of ideographic spaces": (
        lambda r: [pb.RetrievedItem(document_id="\u3000\u3000")],
        "result 1 has a blank document id",
    ),
    "an id over the limit": (
        lambda r: [pb.RetrievedItem(document_id="x" * (MAX_ID_BYTES + 1))],
        f"result 1 has a document id of {MAX_ID_BYTES + 1:,} bytes",
    ),
    "a chunk id over the limit": (
        lambda r: [pb.RetrievedItem(document_id="d1", chunk_id="c" * (MAX_CHUNK_ID_BYTES + 1))],
        "result 1 has a chunk id of",
    ),
    "more results than the limit": (
        lambda r: [pb.RetrievedItem(document_id=f"d{i}") for i in range(r.limit + 1)],
        "results for limit",
    ),
    "a message over the size limit": (
        lambda r: [pb.RetrievedItem(document_id="y" * (MAX_RESPONSE_BYTES + 1))],
        "over the contract's size limit",
    ),
}


class Misbehaving(pb_grpc.RetrieverServicer):
    """Answers every Retrieve with ``answer(request)``; counts the calls."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.calls = 0

    def Retrieve(self, request: pb.RetrieveRequest, context: Any) -> pb.RetrieveResponse:
        self.calls += 1
        if not request.question.strip() or not 1 <= request.limit <= 1000:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "bad request")
        return pb.RetrieveResponse(results=self.answer(request))

    def Describe(self, request: pb.DescribeRequest, context: Any) -> pb.DescribeResponse:
        return pb.DescribeResponse(identifier="misbehaving", version="1")


def _garbage(request: pb.RetrieveRequest, context: Any) -> bytes:
    return b"\x0a\xff\x01ab"  # field 1 claims 255 bytes, 3 follow: not a RetrieveResponse


@pytest.fixture
def misbehaving() -> Iterator[Callable[[Answer | None], tuple[str, Misbehaving]]]:
    servers: list[grpc.Server] = []

    def start(answer: Answer | None) -> tuple[str, Misbehaving]:
        server = grpc.server(futures.ThreadPoolExecutor(4), options=NO_PORT_SHARING)
        servicer = Misbehaving(answer or (lambda r: []))
        if answer is None:  # Retrieve answers with bytes that do not parse
            handler = grpc.unary_unary_rpc_method_handler(
                _garbage,
                request_deserializer=pb.RetrieveRequest.FromString,
                response_serializer=lambda b: b,
            )
            generic = grpc.method_handlers_generic_handler(
                "retrieval_eval.v1.Retriever", {"Retrieve": handler}
            )
            server.add_generic_rpc_handlers((generic,))
        else:
            pb_grpc.add_RetrieverServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}", servicer

    yield start
    for server in servers:
        server.stop(None)


CASES = [*BREACHES, "an unparsable response"]


def _answer(case: str) -> Answer | None:
    return None if case == "an unparsable response" else BREACHES[case][0]


def _expected(case: str) -> str:
    return "unparsable response" if case == "an unparsable response" else BREACHES[case][1]


@pytest.mark.parametrize("case", CASES)
async def test_a_breaching_answer_is_a_contract_error_at_once(misbehaving, case: str) -> None:
    address, servicer = misbehaving(_answer(case))
    async with GrpcRetrieverClient(address, FAST) as client:
        with pytest.raises(RetrieverContractError, match=re.escape(_expected(case))) as caught:
            await client.retrieve("how are documents ranked", 12)
    assert caught.value.kind == "contract"
    if case != "an unparsable response":
        assert servicer.calls == 1  # never retried: it cannot succeed


async def test_a_server_sent_resource_exhausted_is_still_retried(misbehaving) -> None:
    def overloaded(request: pb.RetrieveRequest) -> list[pb.RetrievedItem]:
        raise RuntimeError("never called")

    class Overloaded(Misbehaving):
        def Retrieve(self, request: pb.RetrieveRequest, context: Any) -> pb.RetrieveResponse:
            self.calls += 1
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many requests, slow down")

    server = grpc.server(futures.ThreadPoolExecutor(2), options=NO_PORT_SHARING)
    servicer = Overloaded(overloaded)
    pb_grpc.add_RetrieverServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        async with GrpcRetrieverClient(f"127.0.0.1:{port}", FAST) as client:
            with pytest.raises(Exception, match="too many requests") as caught:
                await client.retrieve("q", 3)
        assert not isinstance(caught.value, RetrieverContractError | RetrieverUnavailable)
        assert servicer.calls == FAST.max_attempts
    finally:
        server.stop(None)


def _question_set() -> GoldenQuestionSet:
    questions = (
        GoldenQuestion("q-none", "what answers nothing", Form.MATCH, ()),
        GoldenQuestion("q-some", "what answers d1", Form.MATCH, ("d1",)),
    )
    return GoldenQuestionSet("breaches", questions)


@pytest.mark.parametrize("case", ["only empty ids", "more results than the limit"])
def test_eval_records_breaches_as_contract_errors_never_misses(misbehaving, case) -> None:
    address, _ = misbehaving(_answer(case))
    [run] = evaluate([_question_set()], [f"grpc://{address}"], EvalOptions(timeout_s=5))
    assert run.error_count == 2  # a response of only empty ids is not "nothing found"
    for outcome in run.questions:
        assert outcome.error is not None and outcome.error.kind == "contract"
        assert _expected(case) in outcome.error.message
        assert outcome.hits == {} and outcome.raw_ids == ()
    assert run.metrics.count == 0


@pytest.mark.parametrize(
    "case", ["only empty ids", "an id over the limit", "a chunk id over the limit"]
)
async def test_check_retriever_fails_on_the_same_breach(misbehaving, case: str) -> None:
    address, _ = misbehaving(_answer(case))
    async with GrpcRetrieverClient(address, FAST) as client:
        results = {r.name: r for r in await check_contract(client)}
    assert not results["document-ids"].passed
    assert _expected(case) in results["document-ids"].detail


async def test_check_retriever_fails_on_too_many_results(misbehaving) -> None:
    address, _ = misbehaving(_answer("more results than the limit"))
    async with GrpcRetrieverClient(address, FAST) as client:
        results = {r.name: r for r in await check_contract(client)}
    assert not results["limit"].passed
    assert "results for limit" in results["limit"].detail


async def test_a_nul_in_describe_is_a_contract_error_before_anything_is_measured(
    misbehaving,
) -> None:
    class NulIdentity(Misbehaving):
        def Describe(self, request: pb.DescribeRequest, context: Any) -> pb.DescribeResponse:
            return pb.DescribeResponse(identifier="bm\x0025", version="1")

    server = grpc.server(futures.ThreadPoolExecutor(2), options=NO_PORT_SHARING)
    pb_grpc.add_RetrieverServicer_to_server(NulIdentity(lambda r: []), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        async with GrpcRetrieverClient(f"127.0.0.1:{port}", FAST) as client:
            with pytest.raises(RetrieverContractError, match="identifier holds a NUL"):
                await client.describe()
            results = {r.name: r for r in await check_contract(client)}
        assert not results["describe"].passed
        assert "NUL" in results["describe"].detail
    finally:
        server.stop(None)
