"""DNS rebinding and framing against a real ``reval sets judge`` in real chromium.

Chromium's ``--host-resolver-rules`` makes ``evil.test`` resolve to 127.0.0.1: the state
a rebinding attack reaches once its page is loaded. The attacker's page itself is served
by Playwright's router at ``http://evil.test:PORT/`` (the viewer's own port, as in the
attack), and its same-origin requests reach the real viewer with ``Host: evil.test``.
Chromium's own local-network checks are switched off: Firefox and Safari have none, so
the viewer must refuse by itself.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from support.env import require
from support.tools import load_tool

TOOL = load_tool("screenshots")  # launches Debian's chromium as the other browser tests do

REVAL = Path(sys.executable).parent / "reval"
DRAFT = (
    "questions:\n  - id: q1\n    question: Where?\n    expected_document_ids: []\n"
    "    labelling:\n      state: unjudged\n      candidates: [{document_id: overview}]\n"
)
NO_PNA = (
    "--disable-features=BlockInsecurePrivateNetworkRequests,"
    "PrivateNetworkAccessSendPreflights,LocalNetworkAccessChecks"
)
ATTACK = """<!doctype html><html><body>
<iframe id="frame" src="%(viewer)s/judge/draft"
  onload="document.body.dataset.framed = '1'"></iframe>
<script>
(async () => {
  const data = await fetch("/judge/draft/data.json");
  document.body.dataset.read = String(data.status);
  const save = await fetch("/judge/draft/questions/q1", {
    method: "POST", headers: {"content-type": "application/json"},
    body: JSON.stringify({judge: "mallory", relevant: ["overview"], complete: true}),
  });
  document.body.dataset.saved = String(save.status);
})();
</script></body></html>"""


@pytest.fixture(scope="module")
def judge_base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    work = tmp_path_factory.mktemp("rebinding")
    draft = work / "draft.yaml"
    draft.write_text(DRAFT)
    corpus = work / "corpus.jsonl"
    corpus.write_text('{"_id": "overview", "title": "Overview", "text": "Here."}\n')
    server = subprocess.Popen(
        [
            str(REVAL),
            "sets",
            "judge",
            str(draft),
            "--corpus",
            str(corpus),
            "--judge",
            "ana",
            "--db",
            f"sqlite:///{work / 'runs.sqlite'}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.endswith("/judge/draft"), url
        yield url.removesuffix("/judge/draft"), draft
    finally:
        server.terminate()
        server.wait(20)


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    require(importlib.util.find_spec("playwright") is not None, "playwright (test extra)")
    require(os.access(TOOL.CHROMIUM, os.X_OK), f"Debian's chromium at {TOOL.CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=TOOL.CHROMIUM,
            args=[*TOOL.CHROMIUM_ARGS, "--host-resolver-rules=MAP evil.test 127.0.0.1", NO_PNA],
        )
        yield browser
        browser.close()


def _attack(browser: object, origin: str, viewer: str) -> tuple[object, dict[str, str]]:
    """Open the attacker's page at ``origin`` (served by the router); its fetches go
    to whatever ``origin``'s host resolves to, i.e. the real viewer."""
    context = browser.new_context()  # type: ignore[attr-defined]

    def route(r: object) -> None:
        if urlsplit(r.request.url).path == "/attack.html":  # type: ignore[attr-defined]
            r.fulfill(status=200, content_type="text/html", body=ATTACK % {"viewer": viewer})  # type: ignore[attr-defined]
        else:
            r.continue_()  # type: ignore[attr-defined]

    context.route("**/*", route)
    page = context.new_page()
    page.goto(f"{origin}/attack.html")
    page.wait_for_selector("body[data-saved][data-framed]", state="attached")
    state = page.evaluate("() => ({...document.body.dataset})")
    return page, state


def test_a_rebound_name_reads_and_saves_nothing(
    chromium: object, judge_base: tuple[str, Path]
) -> None:
    base, draft = judge_base
    port = urlsplit(base).port
    page, state = _attack(chromium, f"http://evil.test:{port}", base)
    assert state["read"] == "400" and state["saved"] == "400", state
    assert "mallory" not in draft.read_text()
    # the viewer said why, naming the refused Host
    page.goto(f"http://evil.test:{port}/judge/draft/data.json")
    assert "'evil.test:" in page.content() and "--expose" in page.content()
    page.context.close()  # type: ignore[attr-defined]
    # the same page served from the viewer's own origin reads and saves (the control)
    page, state = _attack(chromium, base, base)
    assert state["read"] == "200" and state["saved"] == "200", state
    assert "mallory" in draft.read_text()
    page.context.close()  # type: ignore[attr-defined]


def test_the_judging_page_cannot_be_framed(chromium: object, judge_base: tuple[str, Path]) -> None:
    base, _ = judge_base
    page, _ = _attack(chromium, f"http://evil.test:{urlsplit(base).port}", base)
    frame = next(f for f in page.frames if f is not page.main_frame)  # type: ignore[attr-defined]
    assert frame.evaluate("() => document.querySelector('#j-candidates')") is None
    page.context.close()  # type: ignore[attr-defined]
    # the page itself loads and works at its own address
    page = chromium.new_page()  # type: ignore[attr-defined]
    page.goto(f"{base}/judge/draft")
    page.wait_for_selector("html[data-judge-ready]")
    page.close()
