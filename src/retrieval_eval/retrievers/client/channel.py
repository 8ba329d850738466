"""Building the grpc.aio channel for a retriever target from the client's options."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from retrieval_eval.errors import ConfigError
from retrieval_eval.retrievers.backoff import Backoff
from retrieval_eval.retrievers.contract.limits import MAX_RESPONSE_BYTES
from retrieval_eval.retrievers.tls import read_pem


@dataclass(frozen=True, slots=True)
class TlsConfig:
    """Client TLS: ``ca_cert`` verifies the server (None: the system roots);
    ``client_cert`` + ``client_key`` present a certificate (mutual TLS);
    ``server_name`` overrides the name checked against the server certificate."""

    ca_cert: Path | None = None
    client_cert: Path | None = None
    client_key: Path | None = None
    server_name: str | None = None

    def credentials(self) -> grpc.ChannelCredentials:
        """Channel credentials; ``ConfigError`` naming a file that cannot be read."""
        if (self.client_cert is None) != (self.client_key is None):
            raise ConfigError("mutual TLS needs both a client certificate and a client key")
        ca = read_pem(self.ca_cert, "TLS CA certificate") if self.ca_cert else None
        key = read_pem(self.client_key, "TLS client key") if self.client_key else None
        chain = read_pem(self.client_cert, "TLS client certificate") if self.client_cert else None
        return grpc.ssl_channel_credentials(ca, key, chain)


def channel_options(
    load_balancing: str | None, backoff: Backoff, tls: TlsConfig | None
) -> list[tuple[str, Any]]:
    """Channel arguments: the load-balancing policy (so a multi-address target such as
    ``ipv4:127.0.0.1:5001,127.0.0.1:5002`` spreads calls over replicas) and reconnect
    backoff matched to the client's retry policy, so that a retry after UNAVAILABLE
    finds a fresh connection attempt instead of a channel still backing off."""
    options: list[tuple[str, Any]] = [
        ("grpc.initial_reconnect_backoff_ms", max(1, int(backoff.initial_s * 1000))),
        ("grpc.max_reconnect_backoff_ms", max(1, int(backoff.max_s * 1000))),
        # Our client retries on its own terms; gRPC's built-in retries would multiply them.
        ("grpc.enable_retries", 0),
        # The contract's response limit: a larger answer fails in the transport, unparsed.
        ("grpc.max_receive_message_length", MAX_RESPONSE_BYTES),
    ]
    if load_balancing:
        config: dict[str, Any] = {"loadBalancingConfig": [{load_balancing: {}}]}
        options.append(("grpc.service_config", json.dumps(config)))
    if tls is not None and tls.server_name:
        options.append(("grpc.ssl_target_name_override", tls.server_name))
    return options


def open_channel(
    target: str, options: list[tuple[str, Any]], tls: TlsConfig | None
) -> grpc.aio.Channel:
    """A lazily connecting grpc.aio channel, bound to the running event loop."""
    if tls is None:
        return grpc.aio.insecure_channel(target, options=options)
    return grpc.aio.secure_channel(target, tls.credentials(), options=options)
