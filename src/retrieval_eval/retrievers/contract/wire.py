"""The checker's line to a server: raw calls through the generated stub on our client's
channel (for TLS and the token), each with its own deadline, so that no client-side
validation, retries or conversion hide what the server sends."""

from __future__ import annotations

from collections.abc import Sequence

import grpc

from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.client.grpc_client import GrpcRetrieverClient
from retrieval_eval.retrievers.contract.probes import PROBE_QUESTIONS
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.specs import Endpoint
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc


class Wire:
    """Raw calls over a client's channel, each with its own deadline."""

    def __init__(
        self,
        client: GrpcRetrieverClient,
        timeout_s: float,
        questions: Sequence[str] = PROBE_QUESTIONS,
    ) -> None:
        self.client = client
        self.display = client.target
        self.timeout_s = timeout_s
        self.questions = tuple(questions) or PROBE_QUESTIONS

    @property
    def channel(self) -> grpc.aio.Channel:
        return self.client.channel

    @property
    def stub(self) -> pb_grpc.RetrieverStub:
        return self.client.stub

    @property
    def metadata(self) -> tuple[tuple[str, str], ...] | None:
        return self.client.metadata

    async def retrieve(
        self, question: str, limit: int, timeout_s: float | None = None
    ) -> list[RetrievedItem]:
        response = await self.stub.Retrieve(
            pb.RetrieveRequest(question=question, limit=limit),
            timeout=timeout_s or self.timeout_s,
            metadata=self.metadata,
        )
        if not isinstance(response, pb.RetrieveResponse):  # grpc.aio hands None back
            raise ValueError("unparsable response (not a RetrieveResponse)")
        return convert.items_from_proto(response)


def client_for(endpoint: Endpoint) -> GrpcRetrieverClient:
    return GrpcRetrieverClient(
        endpoint.channel_target, endpoint.client_options(), display=endpoint.display
    )
