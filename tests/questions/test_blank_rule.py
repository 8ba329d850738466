"""One blank rule for question sets and the retriever contract (``retrieval_eval.text``,
Unicode's White_Space as the .proto states it): a question the set validator refuses as
empty is one the contract refuses as blank, and one it accepts is one our server answers.

U+001C..U+001F are the edge: ``str.strip()`` strips them, but they are not White_Space, so
by the proto's rule a question made of them is text, not blank; the validator agrees."""

from __future__ import annotations

import grpc
import pytest
from support.questions import jsonl, only

from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.problems import QuestionSetProblems
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.contract.limits import request_problem
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.server.sdk import serve
from retrieval_eval.text import is_blank
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

#: Question text -> blank by the proto's rule.
CASES = {
    "\x1c\x1d\x1e\x1f": False,  # information separators: str.strip() strips them
    "\x1f": False,
    "\u200b\ufeff": False,  # zero-width characters others trim
    " \t\u3000": True,
    "\x85\xa0\u2007\u202f": True,  # White_Space that Java's isBlank() keeps
}


class Echo:
    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        return [RetrievedItem("d1", 1.0)]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("echo", version="1")


@pytest.fixture(scope="module")
def server():
    with serve(Echo()) as handle:
        yield handle


def validator_accepts(tmp_path, text: str) -> bool:
    path = jsonl(tmp_path, {"id": "q", "question": text, "expected_document_ids": ["d1"]})
    try:
        loaded = load_question_set(path)
    except QuestionSetProblems:
        assert only(path) == f"{path}:2: question 'q': empty 'question' text"
        return False
    assert loaded.questions[0].question == text
    return True


async def server_accepts(address: str, text: str) -> bool:
    async with grpc.aio.insecure_channel(address) as channel:
        call = pb_grpc.RetrieverStub(channel).Retrieve(
            pb.RetrieveRequest(question=text, limit=3), timeout=10
        )
        try:
            response = await call
        except grpc.aio.AioRpcError as e:
            assert e.code() == grpc.StatusCode.INVALID_ARGUMENT, e
            assert "blank" in (e.details() or "")
            return False
    assert [r.document_id for r in response.results] == ["d1"]
    return True


@pytest.mark.parametrize(("text", "blank"), CASES.items())
async def test_the_set_validator_and_the_contract_agree_on_blank(tmp_path, server, text, blank):
    assert is_blank(text) == blank
    assert validator_accepts(tmp_path, text) == (not blank)
    assert (request_problem(text, 3) is None) == (not blank)
    assert await server_accepts(server.address, text) == (not blank)


@pytest.mark.parametrize("doc", ["\x1c", "\x1f\x1e"])
def test_an_expected_id_of_separators_is_an_id_as_in_the_contract(tmp_path, doc):
    path = jsonl(tmp_path, {"id": "q", "question": "x", "expected_document_ids": [doc]})
    assert load_question_set(path).questions[0].expected_document_ids == (doc,)
    blank = jsonl(tmp_path, {"id": "q", "question": "x", "expected_document_ids": ["\u3000"]})
    assert only(blank) == f"{blank}:2: question 'q': expected_document_ids item 1 is an empty id"
