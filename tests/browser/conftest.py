"""One headless Debian chromium per test module (Playwright, ``executable_path``), a run store
filled with real runs, the live viewer serving it, and pages that fail the test on any
console error or any request that would leave the machine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.browser import debian_chromium, guarded_page
from support.tools import load_tool

TOOL = load_tool("screenshots")


@pytest.fixture(scope="module")
def browser(demo_db: str) -> Iterator[object]:
    """A browser for each test module that uses it, hence module scope: Playwright's sync
    API keeps an event loop running in this thread while it is open, so it starts after the
    demo store is filled and stops at the end of its module, before the next module's tests
    (which may use asyncio.run) run in this thread."""
    with debian_chromium() as browser:
        yield browser


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
    page, guard = guarded_page(browser)
    page.on("requestfailed", lambda r: guard.errors.append(f"failed: {r.url}"))  # type: ignore[attr-defined]
    page.guard = guard  # type: ignore[attr-defined]
    yield page
    page.context.close()  # type: ignore[attr-defined]
    assert guard.errors == [], guard.errors
    assert guard.blocked == [], f"requests leaving the machine: {guard.blocked}"
