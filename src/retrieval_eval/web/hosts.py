"""Which ``Host`` a request may name, and the headers every answer carries.

DNS rebinding: a page at ``evil.test`` whose name later resolves to 127.0.0.1 talks to
the viewer as its own origin, so the browser's same-origin rule does not protect the run
store or the judging saves. The request still says ``Host: evil.test``, so the viewer
answers only a ``Host`` that is

1. a loopback name (``localhost``, an address in 127.0.0.0/8, ``::1``),
2. the address it is bound to, or
3. a name the user gave with ``--expose NAME``;

when bound to every interface (``0.0.0.0``, ``::``) with ``--expose``, any IP literal
too: a literal cannot be rebound, the browser's origin is the literal itself. The port
is not compared: a rebinding page shares the viewer's port by construction.

Every answer forbids framing (``frame-ancestors 'none'``, ``X-Frame-Options: DENY``):
the judging page is driven by keys, and a framed page could be clicked or typed into.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"localhost", "localhost."})
FRAMING = (
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
)


@dataclass(frozen=True, slots=True)
class HostRule:
    """The names (lower case, no port) a request's ``Host`` may carry besides loopback."""

    names: frozenset[str] = frozenset()
    any_ip_literal: bool = False

    @classmethod
    def for_address(cls, bound: str, exposed: Iterable[str] = ()) -> HostRule:
        names = {n.strip().lower().strip("[]") for n in (bound, *exposed) if n.strip()}
        wildcard = bound in ("0.0.0.0", "::", "")
        return cls(frozenset(names), any_ip_literal=wildcard)

    def allows(self, host_header: str) -> bool:
        host = _hostname(host_header)
        if not host:
            return False
        if host in LOOPBACK_NAMES or host in self.names:
            return True
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return ip.is_loopback or self.any_ip_literal


def _hostname(header: str) -> str:
    """``Host`` without its port, lower case; IPv6 literals without brackets."""
    text = header.strip().lower()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else ""
    name, _, port = text.rpartition(":")
    if name and port.isdigit():
        return name
    return text if ":" not in text else ""


class HostGuard:
    """ASGI middleware: 400 for a ``Host`` outside the rule; framing headers on every
    answer."""

    def __init__(self, app: ASGIApp, rule: HostRule) -> None:
        self.app = app
        self.rule = rule

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        if not self.rule.allows(host):
            body = (
                f"Host {host!r} is not this viewer's address: only loopback names, the "
                "bound address and names given with --expose are answered\n"
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 400,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"content-length", str(len(body)).encode()),
                        *FRAMING,
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *FRAMING]}
            await send(message)

        await self.app(scope, receive, framed)
