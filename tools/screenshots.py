"""Screenshots of every view, for people: ``python tools/screenshots.py OUT_DIR [--db URL]``.

Without ``--db`` it first fills a temporary run store with real runs of the example set
(BM25 at two chunkings, so the history has a variant and verdicts). It then writes the
static report and serves the store with ``reval ui`` on a free loopback port, and takes
light and dark PNGs of the runs list, a run, its history and a comparison with Debian's
chromium driven by Playwright (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
#: No sandbox (root in a container), no GPU, and nothing that phones home.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "retrieval_eval" / "example_data"


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def reval(*args: str) -> None:
    """Run a ``reval`` command in this process (its report is not needed)."""
    from retrieval_eval.cli.main import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(list(args))


def fill_demo_store(workdir: Path) -> str:
    """Real runs of the example set: BM25 with 150-word chunks (three runs, the first
    pinned) and with 60-word chunks (one run, judged against the pin)."""
    db = f"sqlite:///{workdir / 'runs.sqlite'}"
    questions = str(EXAMPLE / "questions.yaml")
    for name, words, overlap in (("big", "150", "30"), ("small", "60", "10")):
        reval("bm25", "index", str(EXAMPLE / "corpus.jsonl"), "--out", str(workdir / name),
              "--chunk-words", words, "--chunk-overlap", overlap)  # fmt: skip
    for i, index in enumerate(("big", "big", "small", "big")):
        reval("eval", "--set", questions, "--retriever", f"bm25:{workdir / index}",
              "--db", db, "--label", f"try={i}")  # fmt: skip
        if i == 0:
            from retrieval_eval.store.store import RunStore

            with RunStore.open(db) as store:
                store.pin(store.list_runs(limit=1)[0].run_id)
    return db


@contextmanager
def viewer(db: str) -> Iterator[str]:
    """``reval ui`` over ``db`` in this process, on a free loopback port."""
    import uvicorn

    from retrieval_eval.store.store import RunStore
    from retrieval_eval.web.app import create_app

    store = RunStore.open(db)
    server = uvicorn.Server(
        uvicorn.Config(create_app(store), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the viewer did not start")
            threading.Event().wait(0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        store.close()


def pages(base: str, db: str) -> dict[str, str]:
    from retrieval_eval.store.store import RunStore

    with RunStore.open(db) as store:
        runs = store.list_runs(limit=None)
    newest, oldest = runs[0], runs[-1]
    compared = "&".join(f"run={r.run_id}" for r in reversed(runs[:3]))
    return {
        "runs": f"{base}/",
        "run": f"{base}/runs/{newest.run_id}",
        "history": f"{base}/history?set={newest.set_name}&retriever={newest.retriever_identifier}",
        "compare": f"{base}/compare?{compared}",
        "report": f"{base}/runs/{oldest.run_id}",
    }


def shoot(out: Path, db: str) -> list[Path]:
    from playwright.sync_api import sync_playwright

    from retrieval_eval.regression.stored import stored_verdict
    from retrieval_eval.regression.verdict_records import RunReport
    from retrieval_eval.report.run.html_view import render_html
    from retrieval_eval.store.store import RunStore

    out.mkdir(parents=True, exist_ok=True)
    with RunStore.open(db) as store:
        newest = store.list_runs(limit=1)[0]
        stored = store.get_stored(newest.run_id)
    report = out / "report.html"
    html = render_html([RunReport(stored.run, stored_verdict(stored))])
    report.write_text(html, encoding="utf-8")
    written = []
    with viewer(db) as base, sync_playwright() as p:
        browser = launch(p)
        urls = pages(base, db)
        urls["report"] = report.as_uri()
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport={"width": 1300, "height": 1000}, color_scheme=scheme)
            for name, url in urls.items():
                page.goto(url)
                page.wait_for_selector("html[data-ready]")
                path = out / f"{name}-{scheme}.png"
                page.screenshot(path=str(path), full_page=True)
                written.append(path)
            page.set_viewport_size({"width": 800, "height": 1000})  # a narrow window
            page.goto(urls["runs"])
            page.wait_for_selector("html[data-ready]")
            path = out / f"runs-800-{scheme}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
            page.close()
        browser.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--db", help="run store URL (default: a fresh demo store)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reval-shots-") as tmp:
        db = args.db or fill_demo_store(Path(tmp))
        for path in shoot(args.out, db):
            print(path)


if __name__ == "__main__":
    main()
