"""gRPC addresses as users type them: ``grpc://HOST:PORT`` (plaintext),
``grpcs://HOST[:PORT]`` (TLS, port 443 by default) and raw gRPC targets (``dns:///host:port``,
``ipv4:a:p,b:p``, ``ipv6:...``, ``unix:path``, ``unix-abstract:name``, ``vsock:cid:port``)."""

from __future__ import annotations

from urllib.parse import urlsplit

from retrieval_eval.errors import InputError
from retrieval_eval.retrievers.specs import Endpoint

SCHEMES = ("grpc://", "grpcs://")
RAW_TARGET_PREFIXES = ("dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:")


def parse_address(address: str) -> Endpoint | None:
    """An ``Endpoint`` for a ``grpc://``/``grpcs://`` address or raw gRPC target, or
    ``None`` when ``address`` is neither (it may then be a name).

    Raises ``InputError`` for a malformed address.
    """
    if address.startswith(SCHEMES):
        return parse_url(address)
    if address.startswith(RAW_TARGET_PREFIXES):
        if address.partition(":")[2].strip("/") == "":
            raise InputError(f"invalid gRPC target {address!r}: nothing after the scheme")
        return Endpoint(display=address, channel_target=address)
    return None


def parse_url(address: str) -> Endpoint:
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
