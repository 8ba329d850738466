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
    id_breach,
    request_problem,
    response_breach,
)
from retrieval_eval.retrievers.protocol import Ranking
from retrieval_eval.text import WHITE_SPACE, is_blank
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

PROTO = Path(__file__).resolve().parents[2] / "proto" / "retrieval_eval" / "v1" / "retriever.proto"


def test_the_proto_states_the_limits_python_enforces() -> None:
    text = re.sub(r"\s*//\s*", " ", PROTO.read_text(encoding="utf-8"))
    assert f"question: non-empty, not blank, at most {MAX_QUESTION_BYTES} bytes" in text
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
        ("", 3, "question must not be empty"),
        (" ", 3, "question must not be blank (only white space)"),
        ("\u3000\u00a0", 3, "question must not be blank"),
        ("\x1c", 3, None),  # str.isspace() says space; Unicode's White_Space does not
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


#: Unicode's White_Space property, typed from PropList.txt (Unicode 15), independently of
#: the module's own list.
PROPLIST_WHITE_SPACE = {
    *range(0x0009, 0x000D + 1),
    0x0020,
    0x0085,
    0x00A0,
    0x1680,
    *range(0x2000, 0x200A + 1),
    0x2028,
    0x2029,
    0x202F,
    0x205F,
    0x3000,
}


def test_blank_is_unicode_white_space_and_the_proto_lists_it() -> None:
    assert {ord(c) for c in WHITE_SPACE} == PROPLIST_WHITE_SPACE
    text = re.sub(r"\s*//\s*", " ", PROTO.read_text(encoding="utf-8"))
    paragraph = text[text.index("Blank means") : text.index("That is exactly")]
    listed: set[int] = set()
    for first, last in re.findall(r"U\+([0-9A-F]{4})(?:\.\.U\+([0-9A-F]{4}))?", paragraph):
        listed.update(range(int(first, 16), int(last or first, 16) + 1))
    assert listed == PROPLIST_WHITE_SPACE


def test_every_blank_character_is_isspace() -> None:
    """``response_breach``'s fast path assumes it: no isspace id means no blank id."""
    isspace = {c for c in range(0x110000) if chr(c).isspace()}
    assert isspace >= PROPLIST_WHITE_SPACE
    assert isspace - PROPLIST_WHITE_SPACE == {0x1C, 0x1D, 0x1E, 0x1F}


@pytest.mark.parametrize("code", sorted(PROPLIST_WHITE_SPACE))
def test_each_white_space_character_makes_a_blank_question_and_id(code: int) -> None:
    text = chr(code) * 2
    assert is_blank(text) and is_blank(f" {chr(code)}\t")
    assert request_problem(text, 3) == "question must not be blank (only white space)"
    assert id_breach(1, text) == f"result 1 has a blank document id ({text!r}, only white space)"
    assert response_breach(Ranking(("a", text)), 5) == id_breach(2, text)
    assert not is_blank(f"{chr(code)}x")


@pytest.mark.parametrize("text", ["\x1c", "\x1f\x1e", "\u200b", "\ufeff", "\u180e", "x"])
def test_characters_outside_white_space_are_not_blank(text: str) -> None:
    """Zero-width and separator characters others trim are text here, as in Go."""
    assert not is_blank(text)
    assert request_problem(text, 3) is None
    assert id_breach(1, text) is None and response_breach(Ranking(("a", text)), 5) is None
