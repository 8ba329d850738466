"""``--format html`` from ``reval eval`` and ``reval runs show``, and ``reval ui`` as a real
process: it serves the store on loopback and refuses other addresses without --expose."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import urllib.error
import urllib.request

from support.cli import FAIL, GOOD, REVAL, run_reval

EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["'](?!/|#|data:)""", re.IGNORECASE)


def test_eval_writes_one_self_contained_html_file(sets, serve_table, db, invoke, tmp_path):
    target = serve_table({**GOOD, "question faq-2": FAIL}, identifier="good")
    out = tmp_path / "report.html"
    result = invoke("eval", "--set", sets["faq"], "--retriever", target, "--db", db,
                    "--max-errors", "1", "--format", "html", "--output", out)  # fmt: skip
    assert result.exit_code == 0
    assert "faq × good 1" in result.output  # the text report still goes to the terminal
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and "Chart.js v4" in html
    assert "default-src &#39;none&#39;" in html  # the page may load nothing from anywhere
    assert not EXTERNAL.search(html)
    assert html.count('<tr data-result="error"') == 1 and "internal" in html
    run_id = json.loads(invoke("runs", "list", "--db", db, "--format", "json").output)["runs"][0]
    shown = invoke("runs", "show", run_id["run_id"], "--db", db, "--format", "html")
    assert shown.output.startswith("<!DOCTYPE html>")  # not a terminal: stdout is fine
    assert f'data-run-id="{run_id["run_id"]}"' in shown.output


def test_ui_refuses_a_non_loopback_address_without_expose(db):
    done = run_reval("ui", "--address", "0.0.0.0:0", "--db", db)
    assert done.returncode == 2
    assert "not a loopback address" in done.stderr and "--expose" in done.stderr


def test_ui_judge_needs_a_corpus_and_refuses_expose(db, sets, tmp_path):
    done = run_reval("ui", "--address", "127.0.0.1:0", "--db", db, "--judge", sets["faq"])
    assert done.returncode == 2 and "--judge needs --corpus" in done.stderr
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d1", "text": "one"}\n')
    done = run_reval("ui", "--address", "0.0.0.0:0", "--expose", "--db", db,
                     "--judge", sets["faq"], "--corpus", corpus)  # fmt: skip
    assert done.returncode == 2 and "cannot be combined with --expose" in done.stderr


def test_ui_serves_the_store_on_loopback_until_terminated(sets, serve_table, db, invoke):
    invoke("eval", "--set", sets["faq"], "--retriever", serve_table(GOOD), "--db", db)
    process = subprocess.Popen(
        [str(REVAL), "ui", "--address", "127.0.0.1:0", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        with urllib.request.urlopen(url.group(0), timeout=10) as response:
            page = response.read().decode()
        assert response.status == 200 and '<table class="runs">' in page
        assert page.count('<tr data-run-id="') == 1
        assert response.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)


def _status(url: str, host: str) -> int:
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_ui_answers_only_loopback_names_and_exposed_names_as_host(db):
    process = subprocess.Popen(
        [str(REVAL), "ui", "--address", "127.0.0.1:0", "--expose", "viewer.test", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", process.stdout.readline())
        assert url
        port = url.group(1)
        for host, status in (("localhost", 200), (f"viewer.test:{port}", 200),
                             (f"127.0.0.1:{port}", 200), (f"evil.test:{port}", 400)):  # fmt: skip
            assert _status(url.group(0), host) == status, host
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)


def test_runs_compare_and_history_write_html(sets, serve_table, db, invoke, tmp_path):
    for answers in (GOOD, {**GOOD, "question faq-1": ["d9"]}):
        invoke("eval", "--set", sets["faq"], "--retriever", serve_table(answers, identifier="s"),
               "--db", db)  # fmt: skip
    listed = json.loads(invoke("runs", "list", "--db", db, "--format", "json").output)["runs"]
    old, new = listed[1]["run_id"], listed[0]["run_id"]
    page = tmp_path / "compare.html"
    done = invoke("runs", "compare", old, new, "--db", db, "--format", "html", "--output", page)
    assert done.output == f"wrote {page}\n"
    html = page.read_text()
    assert re.findall(r'<tr data-run-id="([^"]+)"', html) == [old, new]
    assert '<span class="pill regression"' in html  # faq-1 lost top-1: 0.75 -> 0.5
    assert "faq-1" in html and not EXTERNAL.search(html)  # the disagreeing question
    history = tmp_path / "history.html"
    invoke("runs", "history", "--set", "faq", "--retriever", "s", "--db", db,
           "--format", "html", "--output", history)  # fmt: skip
    html = history.read_text()
    assert re.findall(r'<tr data-run-id="([^"]+)"', html) == [new, old]  # newest first
    assert 'figure data-chart="history"' in html
