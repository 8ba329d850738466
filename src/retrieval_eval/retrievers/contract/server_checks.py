"""The checks of a live server, each independent and reported, pass or fail, with the
reason: reachable (the others are skipped without it), health, Describe, reflection (a
warning when missing), the answers to the probes (limit, order, ids), the refused requests
(empty or blank question, zero or too large a limit, too long a question) and the deadline.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from retrieval_eval.retrievers import convert
from retrieval_eval.retrievers.contract.limits import (
    MAX_LIMIT,
    MAX_QUESTION_BYTES,
    description_breach,
)
from retrieval_eval.retrievers.contract.probes import (
    BLANK_QUESTION,
    HANG_GRACE_S,
    PROBE_LIMITS,
    PROBE_QUESTIONS,
    SHORT_DEADLINE_S,
)
from retrieval_eval.retrievers.contract.rules import (
    RESULT_CHECKS,
    Answer,
    CheckResult,
    judge_ids,
    judge_limit,
    judge_order,
)
from retrieval_eval.retrievers.contract.wire import Wire
from retrieval_eval.retrievers.convert import SERVICE_NAME
from retrieval_eval.v1 import retriever_pb2 as pb

log = logging.getLogger(__name__)


async def run_checks(wire: Wire) -> list[CheckResult]:
    reachable = await _reachable(wire)
    if not reachable.passed:
        return [reachable]
    results = [reachable]
    checks: tuple[Callable[[Wire], Awaitable[list[CheckResult]]], ...] = (
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


async def _reachable(wire: Wire) -> CheckResult:
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


async def _health(wire: Wire) -> list[CheckResult]:
    stub = health_pb2_grpc.HealthStub(wire.channel)
    try:
        response = await stub.Check(health_pb2.HealthCheckRequest(), timeout=wire.timeout_s)
    except Exception as e:
        return [_rpc_failure("health", e)]
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)
    return [CheckResult("health", status == "SERVING", f"grpc.health.v1 reports {status}")]


async def _describe(wire: Wire) -> list[CheckResult]:
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


#: The reflection stream asked as one request and one answer: the server answers a
#: ``list_services`` request with one response, and a unary call reads the server's own
#: status even when it rejects the call before the request lands (a stream's late write
#: would turn that status into INTERNAL).
_LIST_SERVICES = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"


async def _list_services(wire: Wire) -> list[str]:
    ask = wire.channel.unary_unary(
        _LIST_SERVICES,
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    response = await ask(
        reflection_pb2.ServerReflectionRequest(list_services=""), timeout=wire.timeout_s
    )
    return [s.name for s in response.list_services_response.service]


async def _reflection(wire: Wire) -> list[CheckResult]:
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


async def _results(wire: Wire) -> list[CheckResult]:
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


async def _expect_invalid_argument(wire: Wire, name: str, question: str, limit: int) -> CheckResult:
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


async def _empty_question(wire: Wire) -> list[CheckResult]:
    """An empty question and a blank one (one rule: blank is refused like empty)."""
    empty = await _expect_invalid_argument(wire, "empty-question", "", 5)
    if not empty.passed:
        return [empty]
    blank = await _expect_invalid_argument(wire, "empty-question", BLANK_QUESTION, 5)
    if not blank.passed:
        why = f"refuses an empty question but not a blank one ({BLANK_QUESTION!r}): "
        return [CheckResult("empty-question", False, why + blank.detail)]
    return [CheckResult("empty-question", True, f"{empty.detail}; blank too: {blank.detail}")]


async def _over_limit(wire: Wire) -> list[CheckResult]:
    return [await _expect_invalid_argument(wire, "over-limit", PROBE_QUESTIONS[0], MAX_LIMIT + 1)]


async def _long_question(wire: Wire) -> list[CheckResult]:
    """One byte over the contract's question limit (a question sets validate warns about)."""
    question = (PROBE_QUESTIONS[0] + " ") * (MAX_QUESTION_BYTES // len(PROBE_QUESTIONS[0]) + 1)
    question = question[: MAX_QUESTION_BYTES + 1]
    return [await _expect_invalid_argument(wire, "long-question", question, 5)]


async def _zero_limit(wire: Wire) -> list[CheckResult]:
    return [await _expect_invalid_argument(wire, "zero-limit", PROBE_QUESTIONS[0], 0)]


async def _deadline(wire: Wire) -> list[CheckResult]:
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
