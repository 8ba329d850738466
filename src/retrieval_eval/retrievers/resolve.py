"""Turn what a user typed into a retriever: an address, a name from reval.toml, or a plugin.

Resolution order for a spec:

1. ``grpc://HOST:PORT`` (plaintext) or ``grpcs://HOST[:PORT]`` (TLS, port 443 by default);
2. a raw gRPC target: ``dns:///host:port``, ``ipv4:a:p,b:p``, ``ipv6:...``, ``unix:path``,
   ``unix-abstract:name``, ``vsock:cid:port`` (plaintext);
3. a name from ``[retrievers.NAME]`` in ``./reval.toml`` (or ``config_path``); an entry
   with ``fuse = [...]`` is a fusion whose members are resolved the same way; one with
   ``rerank = "NAME"`` a rerank stage over a candidate resolved the same way; one with
   ``kind = "..."`` an http, command or postgres retriever (``retrievers.kinds``);
4. ``run:FILE``, a TREC run file answering by question id (``retrievers.kinds.run``);
5. an in-process plugin from the entry-point namespace ``retrieval_eval.retrievers``:
   ``NAME`` or ``NAME:ARGUMENT`` (e.g. ``bm25:/path/to/index``).

This module resolves; ``addresses`` parses gRPC addresses, ``specs`` holds the resolved
forms, ``opening`` opens what a spec resolved to (``open_retriever``), ``listing`` lists
the names (``list_retrievers``).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from retrieval_eval.errors import ConfigError, InputError, UnknownNameError
from retrieval_eval.retrievers.addresses import parse_address
from retrieval_eval.retrievers.config_file import default_config_path
from retrieval_eval.retrievers.specs import Endpoint, FusionSpec, KindSpec
from retrieval_eval.version import PLUGIN_DISTRIBUTIONS, install_plugin

if TYPE_CHECKING:  # reval.toml's fusions, kinds and rerank stages load when one is named
    from retrieval_eval.retrievers.config import Entry, RetrieverConfig
    from retrieval_eval.retrievers.rerank.open import RerankSpec

__all__ = [
    "KIND_CONFIG",
    "KIND_FUSION",
    "KIND_PLUGIN",
    "KIND_RERANK",
    "PluginSpec",
    "Resolved",
    "load_config_entries",
    "resolve",
]

#: A TREC run file: ``run:FILE`` (``retrievers.kinds.run``).
RUN_PREFIX = "run:"

#: ``RetrieverInfo.kind`` values: these three, and a kind entry's own kind (``http``, ...).
KIND_CONFIG = "config"
KIND_PLUGIN = "plugin"
KIND_FUSION = "fusion"
KIND_RERANK = "rerank"


@dataclass(frozen=True, slots=True)
class PluginSpec:
    """An in-process retriever: entry point ``name`` called with ``argument``."""

    display: str
    name: str
    argument: str | None = None
    timeout_s: float | None = None


Resolved: TypeAlias = "Endpoint | PluginSpec | FusionSpec | KindSpec | RerankSpec"


def load_config_entries(
    config_path: Path | None, used: Collection[str] | None = None
) -> dict[str, Entry]:
    """reval.toml's entries; without the default file, none (and the TOML reader and its
    records are not imported). With ``used``, a bad entry not in it is left out with a
    warning (``load_config``)."""
    if config_path is None and not default_config_path().is_file():
        return {}
    # the TOML reader only when there is a reval.toml
    from retrieval_eval.retrievers.config import load_config

    return load_config(config_path, used=used)


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
    configs = load_config_entries(config_path, used={spec})
    if spec in configs:
        # reval.toml's records and the plugins' entry points load when a spec needs them
        from retrieval_eval.retrievers.config import RetrieverConfig
        from retrieval_eval.retrievers.fusion.config import FusionConfig
        from retrieval_eval.retrievers.rerank.config import RerankConfig

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
    if spec.startswith(RUN_PREFIX):
        # the run kind's reader only when a run file is named
        from retrieval_eval.retrievers.kinds.run.config import from_spec

        return KindSpec(spec, from_spec(spec, spec[len(RUN_PREFIX) :], timeout_s), timeout_s)
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
    elif name in PLUGIN_DISTRIBUTIONS:
        hint = (
            f"{name} is the reference plugin of the {PLUGIN_DISTRIBUTIONS[name]} distribution, "
            f"not installed here: {install_plugin(name)}"
        )
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
    # reval.toml's records only for a reval.toml entry
    from retrieval_eval.retrievers.config import check_token

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
