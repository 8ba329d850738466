"""Check a live retriever against the contract, the way a team building one would want.

The checker calls the server through the raw generated stub (on our client's channel,
for TLS and the token), not through the client's methods, so it sees exactly what the
server sends: no client-side validation, retries or conversion can hide a fault. Every
check is independent and reported, pass or fail, with the reason; nothing raises except
resolving the target.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from retrieval_eval.errors import InputError
from retrieval_eval.records import DEFAULT_TIMEOUT_S
from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.client.grpc_client import GrpcRetrieverClient
from retrieval_eval.retrievers.contract.limits import (
    MAX_LIMIT,
    MAX_QUESTION_BYTES,
    description_breach,
    request_problem,
)
from retrieval_eval.retrievers.contract.rules import (
    RESULT_CHECKS,
    Answer,
    CheckResult,
    judge_ids,
    judge_limit,
    judge_order,
)
from retrieval_eval.retrievers.convert import SERVICE_NAME
from retrieval_eval.retrievers.protocol import RetrievedItem
from retrieval_eval.retrievers.rerank.open import RerankSpec
from retrieval_eval.retrievers.resolve import PluginSpec, Resolved, open_plugin, resolve
from retrieval_eval.retrievers.specs import Endpoint, FusionSpec, KindSpec
from retrieval_eval.v1 import retriever_pb2 as pb
from retrieval_eval.v1 import retriever_pb2_grpc as pb_grpc

__all__ = ["CheckResult", "check_contract"]

log = logging.getLogger(__name__)

#: Generic questions: any retriever over any corpus should answer something to most. A
#: sparse retriever may answer them with fewer results than the limits below, which leaves
#: the limit unexercised: questions from the team's own set (``probe_questions``) do better.
PROBE_QUESTIONS: tuple[str, ...] = (
    "how are documents ranked and returned for a question",
    "what is the best way to get started",
)
PROBE_LIMITS = (1, 5, 12)
#: How many of a set's questions are asked (each at every probe limit), in set order.
MAX_SET_PROBES = 20
#: A blank question (only White_Space characters) that must be refused like an empty one.
BLANK_QUESTION = " \t\u3000 "
#: The short deadline of the deadline check, and how much longer we wait before calling
#: the call hung.
SHORT_DEADLINE_S = 0.2
HANG_GRACE_S = 2.0


def probe_questions(texts: Sequence[str], limit: int = MAX_SET_PROBES) -> tuple[str, ...]:
    """Up to ``limit`` distinct questions from ``texts`` (a set's, in order) that the
    contract allows, to probe with instead of ``PROBE_QUESTIONS``."""
    chosen: dict[str, None] = {}
    for text in texts:
        if len(chosen) == limit:
            break
        if request_problem(text, 1) is None:
            chosen.setdefault(text)
    return tuple(chosen)


class _Wire:
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


def _client_for(endpoint: Endpoint) -> GrpcRetrieverClient:
    return GrpcRetrieverClient(
        endpoint.channel_target, endpoint.client_options(), display=endpoint.display
    )


async def check_contract(
    target: str | Endpoint | GrpcRetrieverClient,
    *,
    timeout_s: float | None = None,
    token: str | None = None,
    config_path: Path | None = None,
    questions: Sequence[str] = PROBE_QUESTIONS,
) -> list[CheckResult]:
    """Run every check against ``target``: any spec ``open_retriever`` accepts, or a
    ready-made client (left open for the caller to close).

    ``timeout_s`` bounds the connection and each call (default: the reval.toml entry's
    timeout, else ``DEFAULT_TIMEOUT_S``). ``questions`` are the probes of the result
    checks (see ``probe_questions`` to take them from a set).

    An in-process plugin is served with our SDK on 127.0.0.1 for the duration, so that
    it is checked over the same wire as a remote one. Raises only for a target that does
    not resolve (``InputError`` family); an unreachable one is a failed ``reachable`` check.
    """
    if isinstance(target, GrpcRetrieverClient):
        return await _run_checks(_Wire(target, timeout_s or DEFAULT_TIMEOUT_S, questions))
    resolved: Resolved = (
        resolve(target, timeout_s=timeout_s, token=token, config_path=config_path)
        if isinstance(target, str)
        else target
    )
    if isinstance(resolved, FusionSpec):
        members = ", ".join(resolved.config.members)
        raise InputError(
            f"{resolved.display!r} is a fusion, not a server: the contract applies to its "
            f"members; check each of them ({members})"
        )
    if isinstance(resolved, RerankSpec):
        raise InputError(
            f"{resolved.display!r} is a rerank stage, not a server: the contract applies to "
            f"its candidate retriever; check {resolved.config.candidate!r}"
        )
    timeout_s = timeout_s or resolved.timeout_s or DEFAULT_TIMEOUT_S
    if isinstance(resolved, PluginSpec):
        return await _check_plugin(resolved, timeout_s, questions)
    if isinstance(resolved, KindSpec):
        return await _check_kind(resolved, timeout_s, questions)
    async with _client_for(resolved) as client:
        return await _run_checks(_Wire(client, timeout_s, questions))


async def _check_plugin(
    spec: PluginSpec, timeout_s: float, questions: Sequence[str]
) -> list[CheckResult]:
    from retrieval_eval.retrievers.server.sdk import serve

    retriever = open_plugin(spec)
    try:
        with serve(retriever.obj, "127.0.0.1:0") as handle:
            endpoint = Endpoint(f"{spec.display} (served on {handle.address})", handle.address)
            async with _client_for(endpoint) as client:
                return await _run_checks(_Wire(client, timeout_s, questions))
    finally:
        await retriever.close()


async def _check_kind(
    spec: KindSpec, timeout_s: float, questions: Sequence[str]
) -> list[CheckResult]:
    """A reval.toml kind (http, command, postgres) served on 127.0.0.1 on this loop, so
    that what it answers is judged by the same checks as any server."""
    from retrieval_eval.retrievers.server.forward import serve_async

    retriever = spec.open()
    try:
        server = await serve_async(retriever, "127.0.0.1:0")
        try:
            endpoint = Endpoint(f"{spec.display} (served on {server.address})", server.address)
            async with _client_for(endpoint) as client:
                return await _run_checks(_Wire(client, timeout_s, questions))
        finally:
            await server.stop(None)
    finally:
        await retriever.close()


async def _run_checks(wire: _Wire) -> list[CheckResult]:
    reachable = await _reachable(wire)
    if not reachable.passed:
        return [reachable]
    results = [reachable]
    checks: tuple[Callable[[_Wire], Awaitable[list[CheckResult]]], ...] = (
        _health,
        _describe,
        _reflection,
        _results,
        _empty_question,
        _zero_limit,
        _over_limit,
        _long_question,
        _deadline,
    )
    for check in checks:
        results.extend(await check(wire))
    for result in results:
        log.info("%s %s: %s", result.status, result.name, result.detail)
    return results


async def _reachable(wire: _Wire) -> CheckResult:
    try:
        await asyncio.wait_for(wire.channel.channel_ready(), wire.timeout_s)
    except TimeoutError:
        state = wire.channel.get_state(try_to_connect=False).name
        return CheckResult(
            "reachable",
            False,
            f"{wire.display} not reachable within {wire.timeout_s:g} s (channel {state})",
        )
    return CheckResult("reachable", True, f"connected to {wire.display}")


def _rpc_failure(name: str, error: BaseException) -> CheckResult:
    if isinstance(error, grpc.aio.AioRpcError):
        return CheckResult(name, False, f"{error.code().name}: {error.details()}")
    return CheckResult(name, False, f"{type(error).__name__}: {error}")


async def _health(wire: _Wire) -> list[CheckResult]:
    stub = health_pb2_grpc.HealthStub(wire.channel)
    try:
        response = await stub.Check(health_pb2.HealthCheckRequest(), timeout=wire.timeout_s)
    except Exception as e:
        return [_rpc_failure("health", e)]
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
    return [CheckResult("health", status == "SERVING", f"grpc.health.v1 reports {status}")]


async def _describe(wire: _Wire) -> list[CheckResult]:
    try:
        response = await wire.stub.Describe(
            pb.DescribeRequest(), timeout=wire.timeout_s, metadata=wire.metadata
        )
    except Exception as e:
        return [_rpc_failure("describe", e)]
    description = convert.description_from_proto(response)
    breach = description_breach(description)
    if breach is not None:
        return [CheckResult("describe", False, breach)]
    detail = f"identifier {description.identifier!r}, version {description.version!r}"
    if description.chunk_separator:
        detail += f", chunk separator {description.chunk_separator!r}"
    return [CheckResult("describe", True, detail)]


_REFLECTION_ADVICE = "recommended (grpcurl and other tools use it), not part of the contract"


#: grpc.aio reports a stream the server rejected before the client's write landed as
#: INTERNAL, hiding the server's own status (UNIMPLEMENTED, mostly); asking again a few
#: times almost always reads the real one.
_REFLECTION_ATTEMPTS = 3


async def _list_services(wire: _Wire) -> list[str]:
    stub = reflection_pb2_grpc.ServerReflectionStub(wire.channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    for attempt in range(1, _REFLECTION_ATTEMPTS + 1):
        try:
            call = stub.ServerReflectionInfo(iter([request]), timeout=wire.timeout_s)
            services: list[str] = []
            async for response in call:
                services += [s.name for s in response.list_services_response.service]
            return services
        except grpc.aio.AioRpcError as e:
            if e.code() != grpc.StatusCode.INTERNAL or attempt == _REFLECTION_ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


async def _reflection(wire: _Wire) -> list[CheckResult]:
    """Server reflection is recommended, not required: its absence is a warning."""
    try:
        services = await _list_services(wire)
    except Exception as e:
        why = _rpc_failure("reflection", e).detail
        return [CheckResult("reflection", True, f"{why}; {_REFLECTION_ADVICE}", warning=True)]
    if SERVICE_NAME not in services:
        listed = ", ".join(sorted(services)) or "nothing"
        why = f"{SERVICE_NAME} not listed (lists {listed}); {_REFLECTION_ADVICE}"
        return [CheckResult("reflection", True, why, warning=True)]
    return [CheckResult("reflection", True, f"lists {SERVICE_NAME}")]


async def _results(wire: _Wire) -> list[CheckResult]:
    """Ask each probe question at each probe limit; judge limit, order and ids together."""
    answers: list[Answer] = []
    for question in wire.questions:
        for limit in PROBE_LIMITS:
            try:
                answers.append((question, limit, await wire.retrieve(question, limit)))
            except Exception as e:
                failure = _rpc_failure("limit", e)
                why = f"Retrieve({question!r}, limit={limit}) failed: {failure.detail}"
                return [CheckResult(name, False, why) for name in RESULT_CHECKS]
    judged = judge_limit(answers, PROBE_LIMITS)
    if judged.warning and wire.questions == PROBE_QUESTIONS:
        advice = "; probe with questions your retriever answers well (--set)"
        judged = CheckResult(judged.name, True, judged.detail + advice, warning=True)
    return [judged, judge_order(answers), judge_ids(answers)]


async def _expect_invalid_argument(
    wire: _Wire, name: str, question: str, limit: int
) -> CheckResult:
    try:
        items = await wire.retrieve(question, limit)
    except grpc.aio.AioRpcError as e:
        if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
            return CheckResult(name, True, f"INVALID_ARGUMENT: {e.details()}")
        return CheckResult(
            name, False, f"expected INVALID_ARGUMENT, got {e.code().name}: {e.details()}"
        )
    except Exception as e:
        return _rpc_failure(name, e)
    return CheckResult(name, False, f"expected INVALID_ARGUMENT, got {len(items)} results")


async def _empty_question(wire: _Wire) -> list[CheckResult]:
    """An empty question and a blank one (one rule: blank is refused like empty)."""
    empty = await _expect_invalid_argument(wire, "empty-question", "", 5)
    if not empty.passed:
        return [empty]
    blank = await _expect_invalid_argument(wire, "empty-question", BLANK_QUESTION, 5)
    if not blank.passed:
        why = f"refuses an empty question but not a blank one ({BLANK_QUESTION!r}): "
        return [CheckResult("empty-question", False, why + blank.detail)]
    return [CheckResult("empty-question", True, f"{empty.detail}; blank too: {blank.detail}")]


async def _over_limit(wire: _Wire) -> list[CheckResult]:
    return [await _expect_invalid_argument(wire, "over-limit", PROBE_QUESTIONS[0], MAX_LIMIT + 1)]


async def _long_question(wire: _Wire) -> list[CheckResult]:
    """One byte over the contract's question limit (a question sets validate warns about)."""
    question = (PROBE_QUESTIONS[0] + " ") * (MAX_QUESTION_BYTES // len(PROBE_QUESTIONS[0]) + 1)
    question = question[: MAX_QUESTION_BYTES + 1]
    return [await _expect_invalid_argument(wire, "long-question", question, 5)]


async def _zero_limit(wire: _Wire) -> list[CheckResult]:
    return [await _expect_invalid_argument(wire, "zero-limit", PROBE_QUESTIONS[0], 0)]


async def _deadline(wire: _Wire) -> list[CheckResult]:
    """A normal call with a short deadline either answers or fails with DEADLINE_EXCEEDED
    promptly; it must not hang past the deadline."""
    started = time.perf_counter()
    call: Any = wire.retrieve(PROBE_QUESTIONS[0], 5, timeout_s=SHORT_DEADLINE_S)
    try:
        await asyncio.wait_for(call, SHORT_DEADLINE_S + HANG_GRACE_S)
    except TimeoutError:
        return [
            CheckResult(
                "deadline",
                False,
                f"no answer and no DEADLINE_EXCEEDED after {SHORT_DEADLINE_S + HANG_GRACE_S:g} s",
            )
        ]
    except grpc.aio.AioRpcError as e:
        elapsed = (time.perf_counter() - started) * 1000
        if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
            return [CheckResult("deadline", True, f"DEADLINE_EXCEEDED after {elapsed:.0f} ms")]
        return [_rpc_failure("deadline", e)]
    elapsed = (time.perf_counter() - started) * 1000
    return [
        CheckResult(
            "deadline",
            True,
            f"answered in {elapsed:.0f} ms within a {SHORT_DEADLINE_S * 1000:.0f} ms deadline",
        )
    ]
