"""Bearer tokens sent as call metadata, shared by our servers and the client."""

from __future__ import annotations

import hmac
from collections.abc import Iterable

#: gRPC metadata keys are lower-case.
AUTHORIZATION = "authorization"


def bearer_metadata(token: str) -> tuple[tuple[str, str], ...]:
    """The call metadata that carries ``token``."""
    return ((AUTHORIZATION, f"Bearer {token}"),)


def token_matches(metadata: Iterable[tuple[str, str | bytes]] | None, token: str) -> bool:
    """Whether the call metadata carries ``Bearer <token>`` (compared in constant time)."""
    expected = f"Bearer {token}".encode()
    for key, value in metadata or ():
        if key == AUTHORIZATION:
            given = value if isinstance(value, bytes) else value.encode()
            return hmac.compare_digest(given, expected)
    return False
