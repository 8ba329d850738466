"""A guard that refuses every non-loopback connection, for tests that must be provably
offline (a framework that may download data on first use: llama-index-core's NLTK and
tiktoken caches).

It wraps ``socket.getaddrinfo`` and ``socket.socket.connect``/``connect_ex`` (asyncio's
and every pure-Python client's way out): a name other than a loopback one, or an address
that is not loopback, raises ``OSError`` AND is recorded, so that a library that swallows
the error (NLTK's downloader prints and carries on) still fails the test. Unix sockets
and loopback pass. It guards the test; it does not stand in for the part under test.

The file uses the standard library only: ``sitecustomize(log)`` returns it as a
``sitecustomize.py`` that installs the guard in a child interpreter, recording refusals
in the file ``log``.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: object) -> bool:
    if host is None:  # getaddrinfo(None, port): the local wildcard
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class Guard:
    """Installed by ``install()``; ``refused`` lists what was refused, in order."""

    def __init__(self, on_refusal: Callable[[str], None] | None = None) -> None:
        self.refused: list[str] = []
        self.on_refusal = on_refusal
        self._saved: dict[str, Any] = {}

    def _refuse(self, what: str) -> OSError:
        self.refused.append(what)
        if self.on_refusal is not None:
            self.on_refusal(what)
        return OSError(f"offline test: refused {what}")

    def install(self) -> Guard:
        getaddrinfo = socket.getaddrinfo
        connect = socket.socket.connect
        connect_ex = socket.socket.connect_ex
        self._saved = {"getaddrinfo": getaddrinfo, "connect": connect, "connect_ex": connect_ex}
        guard = self

        def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            if not is_loopback(host):
                raise guard._refuse(f"name lookup of {host!r}")
            return getaddrinfo(host, *args, **kwargs)

        def allowed(sock: socket.socket, address: Any) -> bool:
            if sock.family not in (socket.AF_INET, socket.AF_INET6):
                return True  # a Unix socket stays on this machine
            return isinstance(address, tuple) and is_loopback(address[0])

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            if not allowed(sock, address):
                raise guard._refuse(f"connection to {address!r}")
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            if not allowed(sock, address):
                raise guard._refuse(f"connection to {address!r}")
            result: int = connect_ex(sock, address)
            return result

        socket.getaddrinfo = guarded_getaddrinfo  # type: ignore[assignment]
        socket.socket.connect = guarded_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign]
        return self

    def uninstall(self) -> None:
        if self._saved:
            socket.getaddrinfo = self._saved["getaddrinfo"]
            socket.socket.connect = self._saved["connect"]  # type: ignore[method-assign]
            socket.socket.connect_ex = self._saved["connect_ex"]  # type: ignore[method-assign]
            self._saved = {}


def sitecustomize(log: Path) -> str:
    """The text of a ``sitecustomize.py`` that guards a child interpreter, appending each
    refusal to ``log`` (one per line)."""
    source = Path(__file__).read_text(encoding="utf-8")
    return (
        f"{source}\n\n"
        "def _record(what: str) -> None:\n"
        f"    with open({str(log)!r}, 'a', encoding='utf-8') as f:\n"
        "        f.write(what + '\\n')\n\n\n"
        "Guard(_record).install()\n"
    )
