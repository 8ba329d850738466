"""Driving a page under test: what it did that it must not (console errors, requests off
the machine), opening a view when it is ready, and the state of one of its charts."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
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


def guarded_page(browser: object) -> tuple[object, Guard]:
    """A page in a fresh context whose console errors and off-machine requests are kept."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    guard = Guard()
    context.route("**/*", guard.route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and guard.errors.append(m.text))
    page.on("pageerror", lambda e: guard.errors.append(str(e)))
    return page, guard


def open_guarded(browser: object, url: str) -> tuple[object, Guard]:
    """``guarded_page`` at ``url``."""
    page, guard = guarded_page(browser)
    page.goto(url)  # type: ignore[attr-defined]
    return page, guard


@contextmanager
def debian_chromium() -> Iterator[object]:
    """Headless Debian chromium through Playwright (skips when either is missing)."""
    import importlib.util

    from support.env import require
    from support.tools import load_tool

    tool = load_tool("screenshots")
    require(importlib.util.find_spec("playwright") is not None, "playwright (test extra)")
    require(os.access(tool.CHROMIUM, os.X_OK), f"Debian's chromium at {tool.CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = tool.launch(p)
        yield browser
        browser.close()


@contextmanager
def judging_server(draft: Path, corpus: Path, judge: str) -> Iterator[str]:
    """``reval sets judge DRAFT --corpus CORPUS --judge JUDGE`` as a user starts it; the
    URL it prints first (the judging page)."""
    reval = Path(sys.executable).parent / "reval"
    server = subprocess.Popen(
        [str(reval), "sets", "judge", str(draft), "--corpus", str(corpus), "--judge", judge],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(20)
