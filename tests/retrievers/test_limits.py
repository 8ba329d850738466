"""The contract's limits: written once in Python, stated in the .proto, enforced by our
server SDK on requests and answers."""

from __future__ import annotations

import re
from pathlib import Path

import grpc
import pytest

from retrieval_eval.retrievers.contract.limits import (
    MAX_CHUNK_ID_BYTES,
    MAX_ID_BYTES,
    MAX_LIMIT,
    MAX_QUESTION_BYTES,
    MAX_RESPONSE_BYTES,
    MIN_LIMIT,
    request_problem,
)
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

PROTO = Path(__file__).resolve().parents[2] / "proto" / "retrieval_eval" / "v1" / "retriever.proto"


def test_the_proto_states_the_limits_python_enforces() -> None:
    text = re.sub(r"\s*//\s*", " ", PROTO.read_text(encoding="utf-8"))
    assert f"question: non-empty, at most {MAX_QUESTION_BYTES} bytes" in text
    assert f"limit: {MIN_LIMIT} to {MAX_LIMIT};" in text
    assert f"document_id: non-empty, not blank, at most {MAX_ID_BYTES} bytes" in text
    assert f"chunk_id: at most {MAX_CHUNK_ID_BYTES} bytes" in text
    assert f"at most {MAX_RESPONSE_BYTES} bytes on the wire" in text
    # The largest conforming answer fits the response limit.
    largest = pb.RetrieveResponse(
        results=[
            pb.RetrievedItem(
                document_id="d" * MAX_ID_BYTES, score=1.0, chunk_id="c" * MAX_CHUNK_ID_BYTES
            )
        ]
        * MAX_LIMIT
    )
    assert largest.ByteSize() < MAX_RESPONSE_BYTES


@pytest.mark.parametrize(
    ("question", "limit", "problem"),
    [
        ("q" * MAX_QUESTION_BYTES, 3, None),
        ("é" * (MAX_QUESTION_BYTES // 2), 3, None),
        ("q" * (MAX_QUESTION_BYTES + 1), 3, f"question is {MAX_QUESTION_BYTES + 1} bytes"),
        ("é" * (MAX_QUESTION_BYTES // 2 + 1), 3, "bytes, more than the"),
        ("q", MAX_LIMIT, None),
        ("q", MAX_LIMIT + 1, f"limit must be in [{MIN_LIMIT}, {MAX_LIMIT}]"),
        ("q", 0, "limit must be in"),
        (" ", 3, "question must not be empty"),
    ],
)
async def test_our_server_rejects_requests_outside_the_limits(
    tiny_server, question: str, limit: int, problem: str | None
) -> None:
    assert (request_problem(question, limit) is None) == (problem is None)
    async with grpc.aio.insecure_channel(tiny_server.address) as channel:
        call = pb_grpc.RetrieverStub(channel).Retrieve(
            pb.RetrieveRequest(question=question, limit=limit), timeout=5
        )
        if problem is None:
            await call
            return
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert problem in (caught.value.details() or "")
