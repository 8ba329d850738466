"""What a retriever spec can resolve to besides an in-process plugin (an address, a
reval.toml fusion or kind entry), and a resolvable name as ``reval retrievers list``
shows it. Imported when a spec resolves to one of them: evaluating a plugin does not
build these records. ``retrievers.resolve`` re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval_eval.retrievers.client.grpc_client import ClientOptions
    from retrieval_eval.retrievers.fusion.config import FusionConfig
    from retrieval_eval.retrievers.kinds.base import KindConfig
    from retrieval_eval.retrievers.protocol import AsyncRetriever


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A remote retriever: what to dial and how."""

    #: What messages and the run store show, e.g. ``grpc://127.0.0.1:5000``.
    display: str
    #: What gRPC dials, e.g. ``127.0.0.1:5000`` or ``dns:///search.internal:443``.
    channel_target: str
    secure: bool = False
    timeout_s: float | None = None
    token: str | None = None
    ca_cert: Path | None = None
    client_cert: Path | None = None
    client_key: Path | None = None
    server_name: str | None = None

    def client_options(self) -> ClientOptions:
        # gRPC only to connect: specs are resolved without it
        from retrieval_eval.retrievers.client.channel import TlsConfig
        from retrieval_eval.retrievers.client.grpc_client import ClientOptions

        tls = None
        if self.secure:
            tls = TlsConfig(self.ca_cert, self.client_cert, self.client_key, self.server_name)
        if self.timeout_s is None:
            return ClientOptions(token=self.token, tls=tls)
        return ClientOptions(timeout_s=self.timeout_s, token=self.token, tls=tls)


@dataclass(frozen=True, slots=True)
class FusionSpec:
    """A fused retriever from reval.toml: its members are resolved when it is opened."""

    display: str
    config: FusionConfig
    timeout_s: float | None = None
    token: str | None = None
    config_path: Path | None = None


@dataclass(frozen=True, slots=True)
class KindSpec:
    """A reval.toml entry with a ``kind`` (http, command, postgres): opened by its kind."""

    display: str
    config: KindConfig
    timeout_s: float | None = None

    def open(self) -> AsyncRetriever:
        return self.config.open(self.timeout_s)


@dataclass(frozen=True, slots=True)
class RetrieverInfo:
    """One resolvable name, for ``reval retrievers list``."""

    name: str
    #: ``config`` (a reval.toml address), ``fusion`` (a reval.toml fusion), ``rerank`` (a
    #: reval.toml rerank stage), a kind (``http``, ``command``, ``postgres``: a reval.toml
    #: kind entry) or ``plugin`` (an installed entry point).
    kind: str
    #: Where it comes from: the reval.toml path, or the distribution providing the plugin.
    source: str
    #: The address (config), the method and members (fusion) or the entry point's
    #: ``module:attr`` (plugin).
    detail: str
    #: A plugin hidden by a reval.toml entry of the same name (the entry wins).
    shadowed: bool = False
