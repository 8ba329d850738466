"""One headless Debian chromium per test module (Playwright, ``executable_path``), a run store
filled with real runs, the live viewer serving it, and pages that fail the test on any
console error or any request that would leave the machine."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator

import pytest
from support.browser import Guard
from support.env import require
from support.tools import load_tool

TOOL = load_tool("screenshots")


@pytest.fixture(scope="module")
def browser(demo_db: str) -> Iterator[object]:
    """A browser for each test module that uses it, hence module scope: Playwright's sync
    API keeps an event loop running in this thread while it is open, so it starts after the
    demo store is filled and stops at the end of its module, before the next module's tests
    (which may use asyncio.run) run in this thread."""
    require(importlib.util.find_spec("playwright") is not None, "playwright (test extra)")
    require(os.access(TOOL.CHROMIUM, os.X_OK), f"Debian's chromium at {TOOL.CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = TOOL.launch(p)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Real runs of the example set through ``reval eval`` (two BM25 chunkings)."""
    return str(TOOL.fill_demo_store(tmp_path_factory.mktemp("demo")))


@pytest.fixture(scope="session")
def viewer_url(demo_db: str) -> Iterator[str]:
    with TOOL.viewer(demo_db) as base:
        yield base


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    guard = Guard()
    context.route("**/*", guard.route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and guard.errors.append(m.text))
    page.on("pageerror", lambda e: guard.errors.append(str(e)))
    page.on("requestfailed", lambda r: guard.errors.append(f"failed: {r.url}"))
    page.guard = guard
    yield page
    context.close()
    assert guard.errors == [], guard.errors
    assert guard.blocked == [], f"requests leaving the machine: {guard.blocked}"
