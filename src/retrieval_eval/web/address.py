"""Where the viewer listens: loopback unless the user says, in so many words, otherwise."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from retrieval_eval.errors import InputError

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class Address:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False  # a host name: could resolve anywhere

    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"


def parse_address(text: str, *, expose: bool = False) -> Address:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (``[::1]:PORT`` for IPv6); port 0 picks a
    free one. Anything but loopback needs ``expose``: the viewer has no authentication."""
    raw = text.strip()
    host, sep, port_text = raw.rpartition(":")
    if not sep:
        host, port_text = LOOPBACK, raw
    host = host.strip("[]") or LOOPBACK
    try:
        port = int(port_text)
    except ValueError:
        raise InputError(f"--address {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8765") from None
    if not 0 <= port <= 65535:
        raise InputError(f"--address {text!r}: port must be within 0..65535")
    address = Address(host, port)
    if not address.loopback and not expose:
        raise InputError(
            f"--address {text!r} is not a loopback address: anyone who can reach "
            f"{host}:{port} could read every stored run (question ids, expected and "
            "returned document ids, labels) with no authentication; add --expose to "
            "do that on purpose"
        )
    return address
