"""Screenshots of every view, for people: ``python tools/screenshots.py OUT_DIR [--db URL]
[--docs]``.

Everything runs in a temporary directory with a fresh ``$REVAL_HOME``. Without ``--db``
it first fills a run store there with real runs of the example set (the dense plugin's
embedding swap, BM25 at two chunkings: the history has a variant and verdicts), made from
a copy of the set and relative index paths, so no temporary or machine-specific path
shows. It then writes the
static report, serves the store with ``reval ui`` on a free loopback port and a draft
with ``reval sets judge``, and takes light and dark PNGs at 1400x1000 of the runs list, a
run, its history, two comparisons and the judging page with Debian's chromium driven by
Playwright (``pip install -e '.[test]'``); then captures ``runs list``, ``runs history``
and ``runs compare`` at 80 and 120 columns, piped. The PNGs are shrunk to a 256-colour
palette (Pillow, from the test extra too). ``--docs`` writes the reference look
into docs/ (the hero image, docs/images/look/, the captures in docs/contributing.md)."""

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


def copy_example(workdir: Path) -> tuple[str, str]:
    """The example set and corpus copied into ``workdir``: their relative names (what a
    page or a capture shows is the name a user in that folder types, not the checkout's)."""
    import shutil

    for name in ("questions.yaml", "corpus.jsonl"):
        shutil.copyfile(EXAMPLE / name, workdir / name)
    return "questions.yaml", "corpus.jsonl"


@contextmanager
def fresh_home(workdir: Path) -> Iterator[None]:
    """A new, empty ``$REVAL_HOME`` (and no ``$REVAL_DATABASE_URL``) for this process and
    every command it starts, so nothing of the machine's own runs, caches or settings shows."""
    import os

    saved = {k: os.environ.get(k) for k in ("REVAL_HOME", "REVAL_DATABASE_URL")}
    os.environ["REVAL_HOME"] = str(workdir / "home")
    os.environ.pop("REVAL_DATABASE_URL", None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def fill_demo_store(workdir: Path) -> str:
    """Real runs of the example set, made inside ``workdir`` with relative index paths (so
    no temporary path shows on a page): the embedding swap of the dense plugin (256, then
    64 dimensions, on one index path), then BM25 with 150-word chunks (three runs, the
    first pinned) and with 60-word chunks (one run, judged against the pin)."""
    db = f"sqlite:///{workdir / 'runs.sqlite'}"
    questions, corpus = copy_example(workdir)
    with contextlib.chdir(workdir):
        for dimensions in ("256", "64"):
            reval("dense", "index", corpus, "--out", "swap-index", "--chunk-words", "150",
                  "--chunk-overlap", "30", "--dimensions", dimensions)  # fmt: skip
            reval("eval", "--set", questions, "--retriever", "dense:swap-index", "--db", db)
        for name, words, overlap in (("big", "150", "30"), ("small", "60", "10")):
            reval("bm25", "index", corpus, "--out", name, "--chunk-words", words,
                  "--chunk-overlap", overlap)  # fmt: skip
        for i, index in enumerate(("big", "big", "small", "big")):
            reval("eval", "--set", questions, "--retriever", f"bm25:{index}", "--db", db,
                  "--label", f"try={i}")  # fmt: skip
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
    swap = "&".join(f"run={r.run_id}" for r in reversed(runs) if r.retriever_identifier == "dense")
    return {
        "runs": f"{base}/",
        "run": f"{base}/runs/{newest.run_id}",
        "history": f"{base}/history?set={newest.set_name}&retriever={newest.retriever_identifier}",
        "compare": f"{base}/compare?{compared}",
        "compare-swap": f"{base}/compare?{swap}",
        "report": f"{base}/runs/{oldest.run_id}",
    }


#: The size of every screenshot of the reference look (docs/contributing.md).
VIEWPORT = {"width": 1400, "height": 1000}
#: The text views captured, piped, at each width: name -> ``reval`` arguments.
WIDTHS = (80, 120)
#: Where ``--docs`` puts the reference look, and the page block it rewrites.
DOCS = Path(__file__).resolve().parents[1] / "docs"
LOOK_START, LOOK_END = "<!-- reference-look:start -->", "<!-- reference-look:end -->"


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
    with viewer(db) as base, judging() as judge, sync_playwright() as p:
        browser = launch(p)
        urls = pages(base, db)
        urls["report"] = report.as_uri()
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport=VIEWPORT, color_scheme=scheme)
            for name, url in urls.items():
                page.goto(url)
                page.wait_for_selector("html[data-ready]")
                path = out / f"{name}-{scheme}.png"
                page.screenshot(path=str(path))
                shrink(path)
                written.append(path)
            page.goto(judge)
            page.wait_for_selector("html[data-judge-ready]")
            path = out / f"judging-{scheme}.png"
            page.screenshot(path=str(path))
            shrink(path)
            written.append(path)
            page.set_viewport_size({"width": 800, "height": 1000})  # a narrow window
            page.goto(urls["runs"])
            page.wait_for_selector("html[data-ready]")
            path = out / f"runs-800-{scheme}.png"
            page.screenshot(path=str(path), full_page=True)
            shrink(path)
            written.append(path)
            page.close()
        browser.close()
    return written


@contextmanager
def judging() -> Iterator[str]:
    """``reval sets judge`` on a draft pooled from two BM25 indexes of the example corpus,
    as a user starts it: the first line it prints is the page's URL."""
    with tempfile.TemporaryDirectory(prefix="reval-judging-") as tmp:
        yield from _judging(Path(tmp))


def _judging(workdir: Path) -> Iterator[str]:
    import os
    import subprocess
    import sys

    corpus = copy_example(workdir)[1]
    questions = workdir / "questions.txt"
    questions.write_text("How do I install the Larkspur agent on Fedora?\n"
                         "My laptop keeps backing up on battery, can I stop that?\n",
                         encoding="utf-8")  # fmt: skip
    with contextlib.chdir(workdir):
        reval("bm25", "index", corpus, "--out", "pages")
        reval("bm25", "index", corpus, "--out", "chunks", "--chunk-words", "30")
        reval("sets", "draft", questions.name, "--corpus", corpus, "--retriever", "bm25:pages",
              "--retriever", "bm25:chunks", "--depth", "5", "--out", "draft.yaml")  # fmt: skip
    command = [str(Path(sys.executable).parent / "reval"), "sets", "judge", "draft.yaml",
               "--corpus", corpus, "--judge", "ana"]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # the URL line arrives as it is printed
    server = subprocess.Popen(command, cwd=workdir, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env)  # fmt: skip
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(20)


def shrink(path: Path) -> None:
    """Rewrite a screenshot with a 256-colour palette, undithered: flat page colours and
    anti-aliased text survive it, and the file is about a third of the browser's."""
    from PIL import Image

    with Image.open(path) as shot:
        palette = shot.convert("RGB").quantize(
            256, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    palette.save(path, optimize=True)


def capture(db: str, workdir: Path) -> dict[str, str]:
    """``runs list``, ``runs history`` and ``runs compare`` as a CI log shows them: stdout
    a pipe, ``COLUMNS`` set, run from ``workdir``. Name -> text."""
    import os
    import subprocess
    import sys

    from retrieval_eval.store.store import RunStore

    with RunStore.open(db) as store:
        runs = store.list_runs(limit=None)
    bm25 = [r.run_id for r in runs if r.retriever_identifier == "bm25"]
    views = {
        "runs list": ["runs", "list"],
        "runs history": ["runs", "history", "--set", runs[0].set_name, "--retriever", "bm25"],
        "runs compare": ["runs", "compare", *reversed(bm25[:3]), "--questions", "none"],
    }
    reval_command = str(Path(sys.executable).parent / "reval")
    found = {}
    for name, args in views.items():
        for width in WIDTHS:
            env = {**os.environ, "COLUMNS": str(width), "NO_COLOR": "1",
                   "REVAL_DATABASE_URL": db}  # fmt: skip
            done = subprocess.run([reval_command, *args], cwd=workdir, env=env, text=True,
                                  capture_output=True, check=True)  # fmt: skip
            found[f"{name} at {width} columns"] = f"$ reval {' '.join(args)}\n{done.stdout}"
    return found


def write_docs(shots: Path, captures: dict[str, str]) -> list[Path]:
    """The reference look into the docs: the hero image, four pages at 1400x1000, and the
    text captures in docs/contributing.md (between its reference-look markers)."""
    import shutil

    look = DOCS / "images" / "look"
    look.mkdir(parents=True, exist_ok=True)
    written = [DOCS / "images" / "history-light.png"]
    shutil.copyfile(shots / "history-light.png", written[0])
    for name in ("run", "compare-swap", "history", "judging"):
        written.append(look / f"{name}.png")
        shutil.copyfile(shots / f"{name}-light.png", written[-1])
    blocks = [LOOK_START]
    for title, text in captures.items():
        blocks += [f"`{title}`:", "", "```text", text.rstrip("\n"), "```", ""]
    blocks.append(LOOK_END)
    page = DOCS / "contributing.md"
    text = page.read_text(encoding="utf-8")
    before, rest = text.split(LOOK_START, 1)
    after = rest.split(LOOK_END, 1)[1]
    page.write_text(before + "\n".join(blocks) + after, encoding="utf-8")
    written.append(page)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--db", help="run store URL (default: a fresh demo store)")
    parser.add_argument(
        "--docs", action="store_true", help="also write the reference look into docs/"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reval-shots-") as tmp, fresh_home(Path(tmp)):
        db = args.db or fill_demo_store(Path(tmp))
        shots = shoot(args.out, db)
        captures = capture(db, Path(tmp))
        for name, text in captures.items():
            path = args.out / (name.replace(" ", "-") + ".txt")
            path.write_text(text, encoding="utf-8")
            shots.append(path)
        if args.docs:
            shots += write_docs(args.out, captures)
        for path in shots:
            print(path)


if __name__ == "__main__":
    main()
