"""Driving a page under test: what it did that it must not (console errors, requests off
the machine), opening a view when it is ready, and the state of one of its charts."""

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


def open_view(page: object, url: str) -> None:
    page.goto(url)  # type: ignore[attr-defined]
    page.wait_for_selector("html[data-ready]")  # type: ignore[attr-defined]


def chart_state(page: object, name: str) -> dict:
    """The Chart.js chart in ``figure[data-name=name]``: its data and whether it painted."""
    return page.evaluate(  # type: ignore[attr-defined, no-any-return]
        """(name) => {
          const canvas = document.querySelector(`figure[data-name="${name}"] canvas`);
          const chart = Chart.getChart(canvas);
          const ctx = canvas.getContext("2d");
          const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
          let painted = 0;
          for (let i = 3; i < pixels.length; i += 4) { if (pixels[i] > 0) painted++; }
          return {
            labels: chart.data.labels || null,
            datasets: chart.data.datasets.map(d => ({label: d.label, data: d.data})),
            painted: painted, area: canvas.width * canvas.height,
          };
        }""",
        name,
    )
