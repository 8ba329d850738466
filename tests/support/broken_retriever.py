"""Retriever servers for the contract checker's tests: ``Ranked`` (well behaved, for our
SDK) and ``BrokenServicer``, the raw generated servicer with the ``Faults`` asked for (each
breaking one rule), served by ``start_broken`` on 127.0.0.1 port 0 with health checking
and (flaky, absent or partial) reflection as asked."""

from __future__ import annotations

import time
from concurrent import futures
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2_grpc

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.text import is_blank
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc
from support.grpc_servers import NO_PORT_SHARING

#: Every check ``check_contract`` makes, in order.
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
    reflection_internal: int = 0  # the first N reflection calls end INTERNAL
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


class FailingReflection(reflection.ReflectionServicer):
    """Ends its first ``failures`` calls INTERNAL: a server failing in its reflection."""

    def __init__(self, names: list[str], failures: int) -> None:
        super().__init__(names)
        self.failures = failures

    def ServerReflectionInfo(self, request_iterator, context):
        if self.failures > 0:
            self.failures -= 1
            context.abort(grpc.StatusCode.INTERNAL, "Internal error from Core")
        yield from super().ServerReflectionInfo(request_iterator, context)


def start_broken(faults: Faults) -> tuple[grpc.Server, str]:
    """A started server with ``faults``, and its ``grpc://127.0.0.1:PORT``."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=NO_PORT_SHARING)
    pb_grpc.add_RetrieverServicer_to_server(BrokenServicer(faults), server)
    names = [pb.DESCRIPTOR.services_by_name["Retriever"].full_name]
    if faults.health is not None:
        servicer = health.HealthServicer()
        servicer.set("", health_pb2.HealthCheckResponse.ServingStatus.Value(faults.health))
        health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    if not faults.reflection:
        names = ["grpc.health.v1.Health"]
    if faults.reflection_service:
        servicer = FailingReflection([*names, reflection.SERVICE_NAME], faults.reflection_internal)
        reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"grpc://127.0.0.1:{port}"
