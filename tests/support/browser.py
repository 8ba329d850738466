"""What a page under test did that it must not: console errors, requests off the machine."""

from __future__ import annotations

from urllib.parse import urlsplit


class Guard:
    """What a page did that it must not: console errors and requests leaving the machine."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.blocked: list[str] = []

    def route(self, route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        parts = urlsplit(url)
        local = parts.hostname in ("127.0.0.1", "localhost")
        if parts.scheme in ("file", "data", "about") or local:
            route.continue_()  # type: ignore[attr-defined]
        else:
            self.blocked.append(url)
            route.abort()  # type: ignore[attr-defined]
