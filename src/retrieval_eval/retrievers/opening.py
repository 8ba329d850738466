"""Open what a spec resolved to: a gRPC client (not yet connected), an in-process plugin,
a reval.toml kind, a fusion of members opened the same way, or a rerank stage over its
candidate; a cycle among fusions and rerank stages is an error, never a hang."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from retrieval_eval.errors import ConfigError, PluginError, RevalError, UnknownNameError
from retrieval_eval.retrievers.protocol import AsyncRetriever, RetrieverFactory
from retrieval_eval.retrievers.resolve import PluginSpec, Resolved, resolve
from retrieval_eval.retrievers.specs import Endpoint, FusionSpec, KindSpec

if TYPE_CHECKING:
    from retrieval_eval.retrievers.fusion.retriever import FusedRetriever
    from retrieval_eval.retrievers.in_process import InProcessRetriever
    from retrieval_eval.retrievers.rerank.open import RerankSpec

#: Closing tasks of members of a fusion that failed to open (kept until done).
_closing: set[object] = set()


def open_retriever(
    spec: str,
    *,
    timeout_s: float | None = None,
    config_path: Path | None = None,
    token: str | None = None,
) -> AsyncRetriever:
    """An ``AsyncRetriever`` for ``spec``; remote ones are not yet connected (await
    ``describe()`` to find out whether it answers)."""
    resolved = resolve(spec, timeout_s=timeout_s, token=token, config_path=config_path)
    return _open_resolved(resolved, ())


def _open_resolved(resolved: Resolved, chain: tuple[str, ...]) -> AsyncRetriever:
    """Open what a name resolved to; ``chain`` holds the fusions and rerank stages being
    opened around it, so that a cycle among them is an error rather than a hang."""
    if isinstance(resolved, PluginSpec):
        return open_plugin(resolved)
    # the gRPC client, fusion, rerank and plugins load with the spec that needs them

    if isinstance(resolved, FusionSpec):
        return open_fusion(resolved, chain)
    if isinstance(resolved, KindSpec):
        return resolved.open()
    if not isinstance(resolved, Endpoint):
        return _open_rerank(resolved, chain)  # the one kind left: a rerank stage
    from retrieval_eval.retrievers.client.grpc_client import GrpcRetrieverClient

    return GrpcRetrieverClient(
        resolved.channel_target, resolved.client_options(), display=resolved.display
    )


def _open_rerank(spec: RerankSpec, chain: tuple[str, ...] = ()) -> AsyncRetriever:
    from retrieval_eval.retrievers.rerank.open import open_rerank

    entry = spec.config

    def open_candidate(opening: tuple[str, ...]) -> AsyncRetriever:
        if entry.candidate in opening:
            cycle = " -> ".join((*opening, entry.candidate))
            raise ConfigError(f"{entry.where}: key 'rerank': retrievers form a cycle: {cycle}")
        try:
            resolved = resolve(
                entry.candidate, timeout_s=spec.timeout_s, token=spec.token,
                config_path=spec.config_path,
            )  # fmt: skip
        except UnknownNameError as e:
            raise ConfigError(f"{entry.where}: key 'rerank': {e}") from e
        return _open_resolved(resolved, opening)

    return open_rerank(spec, open_candidate, chain)


def open_fusion(spec: FusionSpec, _opening: tuple[str, ...] = ()) -> FusedRetriever:
    """Open every member of a fusion (a fusion may fuse fusions, but not in a cycle)."""
    from retrieval_eval.retrievers.fusion.retriever import FusedRetriever, Member

    entry = spec.config
    chain = (*_opening, entry.name)
    members: list[Member] = []
    try:
        for name in entry.members:
            if name in chain:
                cycle = " -> ".join((*chain, name))
                raise ConfigError(f"{entry.where}: key 'fuse': fusions form a cycle: {cycle}")
            members.append(Member(name, _open_member(name, spec, chain)))
    except BaseException:
        for member in members:
            _close_now(member.retriever)
        raise
    return FusedRetriever(
        spec.display,
        members,
        entry.params,
        on_member_error=entry.on_member_error,
        timeout_s=spec.timeout_s,
    )


def _open_member(name: str, spec: FusionSpec, chain: tuple[str, ...]) -> AsyncRetriever:
    try:
        resolved = resolve(
            name, timeout_s=spec.timeout_s, token=spec.token, config_path=spec.config_path
        )
    except UnknownNameError as e:
        raise ConfigError(f"{spec.config.where}: key 'fuse': {e}") from e
    return _open_resolved(resolved, chain)


def _close_now(retriever: AsyncRetriever) -> None:
    """Close a member opened before a later one failed to open: now, or as a task of the
    running event loop (opening is synchronous, closing may not be)."""
    # asyncio only to close a retriever from sync code
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(retriever.close())
    else:
        task = loop.create_task(retriever.close())
        _closing.add(task)
        task.add_done_callback(_closing.discard)


def open_plugin(spec: PluginSpec) -> InProcessRetriever:
    """Load the entry point, call its factory with the argument, wrap the result.

    Errors a factory raises on purpose (e.g. a missing index -> ``InputError``) pass
    through; anything else becomes a ``PluginError`` naming the plugin.
    """
    from retrieval_eval.plugins import RETRIEVERS, load_plugin
    from retrieval_eval.retrievers.in_process import InProcessRetriever

    factory: RetrieverFactory = load_plugin(RETRIEVERS, spec.name, kind="retriever")
    try:
        obj = factory(spec.argument)
    except RevalError:
        raise
    except Exception as e:
        raise PluginError(
            f"retriever plugin {spec.name!r} could not be created from {spec.display!r}: "
            f"{type(e).__name__}: {e}"
        ) from e
    if not callable(getattr(obj, "retrieve", None)):
        raise PluginError(
            f"retriever plugin {spec.name!r} returned {type(obj).__name__}, "
            "which has no retrieve(question, limit)"
        )
    return InProcessRetriever(obj, target=spec.display, timeout_s=spec.timeout_s)
