"""Turn what a user typed into a retriever: an address, a name from reval.toml, or a plugin.

Resolution order for a spec:

1. ``grpc://HOST:PORT`` (plaintext) or ``grpcs://HOST[:PORT]`` (TLS, port 443 by default);
2. a raw gRPC target: ``dns:///host:port``, ``ipv4:a:p,b:p``, ``ipv6:...``, ``unix:path``,
   ``unix-abstract:name``, ``vsock:cid:port`` (plaintext);
3. a name from ``[retrievers.NAME]`` in ``./reval.toml`` (or ``config_path``); an entry
   with ``fuse = [...]`` is a fusion whose members are resolved the same way; one with
   ``rerank = "NAME"`` a rerank stage over a candidate resolved the same way; one with
   ``kind = "..."`` an http, command or postgres retriever (``retrievers.kinds``);
4. an in-process plugin from the entry-point namespace ``retrieval_eval.retrievers``:
   ``NAME`` or ``NAME:ARGUMENT`` (e.g. ``bm25:/path/to/index``).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from retrieval_eval.errors import (
    ConfigError,
    InputError,
    PluginError,
    RevalError,
    UnknownNameError,
)
from retrieval_eval.lazy_names import lazy_getattr
from retrieval_eval.retrievers.config_file import default_config_path
from retrieval_eval.retrievers.protocol import AsyncRetriever, RetrieverFactory

if TYPE_CHECKING:  # reval.toml's fusions, kinds and rerank stages load when one is named
    from typing import TypeAlias

    from retrieval_eval.retrievers.config import Entry, RetrieverConfig
    from retrieval_eval.retrievers.fusion.config import FusionConfig
    from retrieval_eval.retrievers.fusion.retriever import FusedRetriever
    from retrieval_eval.retrievers.in_process import InProcessRetriever
    from retrieval_eval.retrievers.kinds.base import KindConfig
    from retrieval_eval.retrievers.rerank.config import RerankConfig
    from retrieval_eval.retrievers.rerank.open import RerankSpec
    from retrieval_eval.retrievers.specs import Endpoint, FusionSpec, KindSpec, RetrieverInfo

SCHEMES = ("grpc://", "grpcs://")
RAW_TARGET_PREFIXES = ("dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:")
#: ``RetrieverInfo.kind`` values: these three, and a kind entry's own kind (``http``, ...).
KIND_CONFIG = "config"
KIND_PLUGIN = "plugin"
KIND_FUSION = "fusion"
KIND_RERANK = "rerank"
#: Closing tasks of members of a fusion that failed to open (kept until done).
_closing: set[object] = set()


@dataclass(frozen=True, slots=True)
class PluginSpec:
    """An in-process retriever: entry point ``name`` called with ``argument``."""

    display: str
    name: str
    argument: str | None = None
    timeout_s: float | None = None


Resolved: TypeAlias = "Endpoint | PluginSpec | FusionSpec | KindSpec | RerankSpec"

#: The other resolved forms (``retrievers.specs``), built when a spec resolves to one.
_SPECS = ("Endpoint", "FusionSpec", "KindSpec", "RetrieverInfo")
__getattr__ = lazy_getattr(globals(), dict.fromkeys(_SPECS, "retrieval_eval.retrievers.specs"))


def _load_config(config_path: Path | None) -> dict[str, Entry]:
    """reval.toml's entries; without the default file, none (and the TOML reader and its
    records are not imported)."""
    if config_path is None and not default_config_path().is_file():
        return {}
    from retrieval_eval.retrievers.config import load_config

    return load_config(config_path)


def parse_address(address: str) -> Endpoint | None:
    """An ``Endpoint`` for a ``grpc://``/``grpcs://`` address or raw gRPC target, or
    ``None`` when ``address`` is neither (it may then be a name).

    Raises ``InputError`` for a malformed address.
    """
    if address.startswith(SCHEMES):
        return _parse_url(address)
    if address.startswith(RAW_TARGET_PREFIXES):
        from retrieval_eval.retrievers.specs import Endpoint

        if address.partition(":")[2].strip("/") == "":
            raise InputError(f"invalid gRPC target {address!r}: nothing after the scheme")
        return Endpoint(display=address, channel_target=address)
    return None


def _parse_url(address: str) -> Endpoint:
    from retrieval_eval.retrievers.specs import Endpoint

    secure = address.startswith("grpcs://")
    example = "grpcs://HOST[:PORT]" if secure else "grpc://HOST:PORT"
    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError as e:
        raise InputError(f"invalid retriever address {address!r}: {e}; expected {example}") from e
    if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise InputError(f"invalid retriever address {address!r}; expected {example}")
    if port is None and not secure:
        raise InputError(f"retriever address {address!r} has no port; expected {example}")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    target = f"{host}:{port if port is not None else 443}"
    return Endpoint(
        display=f"{address[: address.index('//') + 2]}{target}",
        channel_target=target,
        secure=secure,
    )


def resolve(
    spec: str,
    *,
    timeout_s: float | None = None,
    token: str | None = None,
    config_path: Path | None = None,
) -> Resolved:
    """What ``spec`` names, without connecting or importing any plugin.

    Raises ``UnknownNameError`` (with suggestions) when nothing matches, ``ConfigError`` for
    a bad reval.toml entry, ``InputError`` for a malformed address.
    """
    spec = spec.strip()
    if not spec:
        raise InputError("empty retriever spec; give grpc://HOST:PORT, a name or a plugin")
    endpoint = parse_address(spec)
    if endpoint is not None:
        return _with_options(endpoint, timeout_s=timeout_s, token=token)
    configs = _load_config(config_path)
    if spec in configs:
        from retrieval_eval.retrievers.config import RetrieverConfig
        from retrieval_eval.retrievers.fusion.config import FusionConfig
        from retrieval_eval.retrievers.rerank.config import RerankConfig
        from retrieval_eval.retrievers.specs import FusionSpec, KindSpec

        entry = configs[spec]
        if isinstance(entry, FusionConfig):
            timeout_s = timeout_s if timeout_s is not None else entry.timeout_s
            return FusionSpec(spec, entry, timeout_s, token, config_path)
        if isinstance(entry, RerankConfig):
            from retrieval_eval.retrievers.rerank.open import RerankSpec

            timeout_s = timeout_s if timeout_s is not None else entry.timeout_s
            return RerankSpec(spec, entry, timeout_s, token, config_path)
        if isinstance(entry, RetrieverConfig):
            return _from_config(entry, timeout_s=timeout_s, token=token)
        return KindSpec(spec, entry, timeout_s)
    from retrieval_eval.plugins import RETRIEVERS, scan_plugins

    name, sep, argument = spec.partition(":")
    plugins = [p.name for p in scan_plugins(RETRIEVERS)]
    if name in plugins:
        return PluginSpec(spec, name, argument if sep else None, timeout_s)
    suggestions = difflib.get_close_matches(name, [*configs, *plugins], n=3)
    if sep and argument.isdigit():
        suggestions.insert(0, f"grpc://{spec}")
    hint = ""
    if name in ("http", "https") and argument.startswith("//"):
        suggestions = [f"grpc://{argument[2:].rstrip('/')}"]
        hint = ("gRPC addresses start with grpc://, or grpcs:// with TLS; an HTTP search API "
                "is a retriever of kind \"http\" in reval.toml, named by its name")  # fmt: skip
    elif not sep and plugins:
        # a bare name is often a plugin's argument (an index directory) without the plugin
        suggestions += [f"{plugin}:{spec}" for plugin in plugins]
        hint = "a plugin takes its argument after a colon: PLUGIN:ARGUMENT"
    raise UnknownNameError("retriever", spec, suggestions[:5], hint)


def _with_options(endpoint: Endpoint, *, timeout_s: float | None, token: str | None) -> Endpoint:
    """The endpoint with the caller's timeout and token, where given."""
    if timeout_s is not None:
        endpoint = replace(endpoint, timeout_s=timeout_s)
    if token is not None:
        endpoint = replace(endpoint, token=token)
    return endpoint


def _from_config(entry: RetrieverConfig, *, timeout_s: float | None, token: str | None) -> Endpoint:
    from retrieval_eval.retrievers.config import check_token
    from retrieval_eval.retrievers.specs import Endpoint

    try:
        endpoint = parse_address(entry.address)
    except InputError as e:
        raise ConfigError(f"{entry.where}: key 'address': {e}") from e
    if endpoint is None:
        raise ConfigError(
            f"{entry.where}: key 'address': {entry.address!r} is not a gRPC address; "
            "use grpc://HOST:PORT, grpcs://HOST[:PORT] or a raw target such as dns:///HOST:PORT"
        )
    if token is None and entry.token_env is not None:
        token = os.environ.get(entry.token_env)
        if not token:
            raise ConfigError(
                f"{entry.where}: key 'token_env': environment variable {entry.token_env} is not set"
            )
        token = check_token(token, f"{entry.where}: key 'token_env'", entry.token_env)
    for key in ("tls_ca", "tls_cert", "tls_key"):
        path = getattr(entry, key)
        if path is not None and not path.is_file():
            raise ConfigError(f"{entry.where}: key {key!r}: file not found: {path}")
    return Endpoint(
        display=f"{entry.name} ({endpoint.display})",
        channel_target=endpoint.channel_target,
        secure=endpoint.secure or entry.uses_tls_files,
        timeout_s=timeout_s if timeout_s is not None else entry.timeout_s,
        token=token,
        ca_cert=entry.tls_ca,
        client_cert=entry.tls_cert,
        client_key=entry.tls_key,
        server_name=entry.tls_server_name,
    )


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
    from retrieval_eval.retrievers.specs import Endpoint, FusionSpec, KindSpec

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


def list_retrievers(config_path: Path | None = None) -> list[RetrieverInfo]:
    """Every resolvable name: reval.toml entries first (they win on a clash), then plugins."""
    from retrieval_eval.plugins import RETRIEVERS, list_plugins
    from retrieval_eval.retrievers.specs import RetrieverInfo

    configs = _load_config(config_path)
    infos = [_config_info(entry) for entry in configs.values()]
    infos += [
        RetrieverInfo(
            p.name, KIND_PLUGIN, f"entry point in {p.distribution}", p.target, p.name in configs
        )
        for p in list_plugins(RETRIEVERS)
    ]
    return infos


def _config_info(
    entry: RetrieverConfig | FusionConfig | KindConfig | RerankConfig,
) -> RetrieverInfo:
    from retrieval_eval.retrievers.config import RetrieverConfig
    from retrieval_eval.retrievers.fusion.config import FusionConfig
    from retrieval_eval.retrievers.rerank.config import RerankConfig
    from retrieval_eval.retrievers.specs import RetrieverInfo

    if isinstance(entry, FusionConfig):
        return RetrieverInfo(entry.name, KIND_FUSION, str(entry.source), _fusion_detail(entry))
    if isinstance(entry, RerankConfig):
        return RetrieverInfo(entry.name, KIND_RERANK, str(entry.source), entry.describe())
    if isinstance(entry, RetrieverConfig):
        return RetrieverInfo(entry.name, KIND_CONFIG, str(entry.source), entry.address)
    common = entry.common
    return RetrieverInfo(common.name, common.kind, str(common.source), entry.detail())


def _fusion_detail(entry: FusionConfig) -> str:
    """``rrf k=60 of bm25-local, dense``."""
    return f"{entry.params.describe()} of {', '.join(entry.members)}"
