"""Check a live retriever against the contract, the way a team building one would want.

The checker calls the server through the raw generated stub (on our client's channel,
for TLS and the token), not through the client's methods, so it sees exactly what the
server sends: no client-side validation, retries or conversion can hide a fault. Every
check is independent and reported, pass or fail, with the reason; nothing raises except
resolving the target.

This module turns a target into a server to check (an in-process plugin or a reval.toml
kind is served on 127.0.0.1 for the duration); ``probes`` holds what is asked, ``wire``
the raw calls, ``server_checks`` the checks themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from retrieval_eval.errors import InputError
from retrieval_eval.records.parameters import DEFAULT_TIMEOUT_S
from retrieval_eval.retrievers.client.grpc_client import GrpcRetrieverClient
from retrieval_eval.retrievers.contract.probes import PROBE_QUESTIONS
from retrieval_eval.retrievers.contract.rules import CheckResult
from retrieval_eval.retrievers.contract.server_checks import run_checks
from retrieval_eval.retrievers.contract.wire import Wire, client_for
from retrieval_eval.retrievers.opening import open_plugin
from retrieval_eval.retrievers.rerank.open import RerankSpec
from retrieval_eval.retrievers.resolve import PluginSpec, Resolved, resolve
from retrieval_eval.retrievers.specs import Endpoint, FusionSpec, KindSpec


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
        return await run_checks(Wire(target, timeout_s or DEFAULT_TIMEOUT_S, questions))
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
    async with client_for(resolved) as client:
        return await run_checks(Wire(client, timeout_s, questions))


async def _check_plugin(
    spec: PluginSpec, timeout_s: float, questions: Sequence[str]
) -> list[CheckResult]:
    # the gRPC server only to check a plugin
    from retrieval_eval.retrievers.server.sdk import serve

    retriever = open_plugin(spec)
    try:
        with serve(retriever.obj, "127.0.0.1:0") as handle:
            endpoint = Endpoint(f"{spec.display} (served on {handle.address})", handle.address)
            async with client_for(endpoint) as client:
                return await run_checks(Wire(client, timeout_s, questions))
    finally:
        await retriever.close()


async def _check_kind(
    spec: KindSpec, timeout_s: float, questions: Sequence[str]
) -> list[CheckResult]:
    """A reval.toml kind (http, command, postgres) served on 127.0.0.1 on this loop, so
    that what it answers is judged by the same checks as any server."""
    # the forwarding server only to check a kind
    from retrieval_eval.retrievers.server.forward import serve_async

    retriever = spec.open()
    try:
        server = await serve_async(retriever, "127.0.0.1:0")
        try:
            endpoint = Endpoint(f"{spec.display} (served on {server.address})", server.address)
            async with client_for(endpoint) as client:
                return await run_checks(Wire(client, timeout_s, questions))
        finally:
            await server.stop(None)
    finally:
        await retriever.close()
