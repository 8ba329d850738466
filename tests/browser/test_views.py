"""The views in a real browser: the static report file and the live viewer show the same
figures as the JSON report and the library, draw every chart, and load nothing from
outside the machine (the ``page`` fixture fails the test otherwise)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.browser import chart_state, open_view

from retrieval_eval.comparison.compare import compare_runs
from retrieval_eval.comparison.history import build_history
from retrieval_eval.store.store import RunStore

REVAL = str(Path(sys.executable).parent / "reval")
pytestmark = pytest.mark.browser


def reval(*args: str) -> str:
    return subprocess.run([REVAL, *args], check=True, capture_output=True, text=True).stdout


def newest_run(db: str) -> str:
    with RunStore.open(db) as store:
        return store.list_runs(limit=1)[0].run_id


def assert_run_matches(page, run: dict) -> None:
    """Headline cards, breakdown charts, latency marks and the table against the JSON."""
    for metric in ("top1_hit_rate", "top3_hit_rate"):
        card = page.locator(f'.card.headline[data-metric="{metric}"]')
        est = run["metrics"]["intervals"][metric]
        assert card.locator(".rate").inner_text() == f"{est['rate']:.3f}"
        assert card.locator(".low").inner_text() == f"{est['low']:.3f}"
        assert card.locator(".high").inner_text() == f"{est['high']:.3f}"
        assert card.locator(".count").inner_text() == f"{est['successes']}/{est['count']}"
    verdict = run["regression"]["verdict"] if run["regression"] else "none"
    assert page.locator(".verdict").first.get_attribute("data-verdict") == verdict
    for name, key in (("by_form", "by_form"), ("by_hard_class", "by_hard_class")):
        chart = chart_state(page, name)
        assert chart["painted"] > 0.01 * chart["area"], f"{name} chart not drawn"
        assert chart["labels"] == list(run[key])
        top1 = [run[key][g]["intervals"]["top1_hit_rate"]["rate"] for g in run[key]]
        assert chart["datasets"][0]["data"] == pytest.approx(top1)
    latency = chart_state(page, "latency")
    assert latency["painted"] > 0
    marks = {d["label"].split()[0]: d["data"][0]["x"] for d in latency["datasets"][1:]}
    assert marks == pytest.approx({p: run["latency_ms"][p] for p in ("p50", "p95", "p99")})
    rows = page.locator("table.questions tbody tr")
    assert rows.count() == len(run["questions"])
    errors = sum(q["error"] is not None for q in run["questions"])
    assert page.locator("table.questions tbody tr.error").count() == errors


def test_static_report_shows_the_json_figures_and_filters(page, demo_db, tmp_path):
    run_id = newest_run(demo_db)
    html, js = tmp_path / "run.html", tmp_path / "run.json"
    reval("runs", "show", run_id, "--db", demo_db, "--format", "html", "--output", str(html))
    reval("runs", "show", run_id, "--db", demo_db, "--format", "json", "--output", str(js))
    (run,) = json.loads(js.read_text())["runs"]
    open_view(page, html.as_uri())
    assert_run_matches(page, run)

    misses = [q for q in run["questions"] if q["top3_hit"] is False]
    page.select_option("select[data-filter=result]", "miss")
    assert page.locator("table.questions tbody tr:visible").count() == len(misses)
    page.select_option("select[data-filter=result]", "")
    first = run["questions"][0]["id"]
    page.fill("input[data-filter=text]", first)
    visible = page.locator("table.questions tbody tr:visible td:first-child").all_inner_texts()
    assert visible and all(first in text for text in visible)
    page.fill("input[data-filter=text]", "")

    page.emulate_media(color_scheme="dark")  # the page and its charts follow the scheme
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(230, 237, 243)"
    assert chart_color_becomes(page, "#e6edf3")
    page.emulate_media(color_scheme="light", media="print")  # filters hidden, table whole
    assert not page.locator(".filters").first.is_visible()
    assert chart_state(page, "by_form")["painted"] > 0
    page.emulate_media(media="screen")

    page.click("table.questions th:has-text('latency ms')")
    shown = page.locator("table.questions tbody tr td:nth-child(8)").all_inner_texts()
    latencies = sorted(q["latency_ms"] for q in run["questions"] if q["latency_ms"] is not None)
    assert shown[: len(latencies)] == [f"{v:.1f}" for v in latencies]


def test_viewer_pages_show_the_stores_figures(page, demo_db, viewer_url):
    with RunStore.open(demo_db) as store:
        summaries = store.list_runs(limit=None)
        stored = store.history(summaries[0].set_name, summaries[0].retriever_identifier)
        picked = [store.get(s.run_id) for s in reversed(summaries[:3])]
    open_view(page, viewer_url + "/")
    ids = page.locator("table.runs tbody tr").evaluate_all("rs => rs.map(r => r.dataset.runId)")
    assert ids == [s.run_id for s in summaries]

    page.click(f'table.runs tbody tr[data-run-id="{summaries[0].run_id}"] td:nth-child(2) a')
    page.wait_for_selector("html[data-ready]")
    document = page.request.get(f"{viewer_url}/runs/{summaries[0].run_id}.json").json()
    assert_run_matches(page, document["runs"][0])

    page.click("header a:has-text('history')")
    page.wait_for_selector("html[data-ready]")
    history = build_history(summaries[0].set_name, summaries[0].retriever_identifier, stored)
    chart = chart_state(page, "history")
    assert chart["painted"] > 0
    top1 = [e.top1.rate for e in reversed(history.entries)]
    line = next(d for d in chart["datasets"] if d["label"] == "top-1")
    assert line["data"] == pytest.approx(top1)
    assert page.locator("table.history tbody tr").count() == len(history.entries)

    open_view(page, viewer_url + "/")
    for run in picked:
        page.check(f'input[name=run][value="{run.run_id}"]')
    page.click("form.compare-pick button")
    page.wait_for_selector("html[data-ready]")
    comparison = compare_runs(picked)
    for column in comparison.runs:
        row = page.locator('table.metrics tr[data-metric="top1_hit_rate"]')
        cell = row.locator(f'td[data-run-id="{column.run_id}"] .value')
        assert cell.inner_text() == f"{column.metrics.values['top1_hit_rate']:.3f}"
    grouped = chart_state(page, "form-top1_hit_rate")
    assert grouped["painted"] > 0
    names = page.locator("table.metrics thead th.run-head").all_inner_texts()
    assert [d["label"] for d in grouped["datasets"]] == [n.split("\n")[0].removesuffix(" (ref)")
                                                         for n in names]  # fmt: skip
    for name, column in zip(names, comparison.runs, strict=True):
        assert column.run_id in name  # the id is still there to copy
    cells = page.locator("table.grid tbody tr").count()
    assert cells == len(comparison.questions)


def test_hostile_hard_classes_leave_the_page_whole(page, tmp_path):
    """``<!--<script>`` in a hard class once made one JSON element swallow the page."""
    from support.factory import make_run, question_set

    from retrieval_eval.regression.verdict import judge
    from retrieval_eval.regression.verdict_records import Thresholds

    hostile = ["<!--<script>", "</script><u id=injected>x</u>", "a & b > c", "<!--", None]
    run = make_run("1130113011", qs=question_set(10, classes=hostile * 2))
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    with RunStore.open(db) as store:
        run_id = store.save(run, judge(run, None, Thresholds()))
    html, js = tmp_path / "run.html", tmp_path / "run.json"
    reval("runs", "show", run_id, "--db", db, "--format", "html", "--output", str(html))
    reval("runs", "show", run_id, "--db", db, "--format", "json", "--output", str(js))
    (shown,) = json.loads(js.read_text())["runs"]
    assert set(hostile[:-1]) <= set(shown["by_hard_class"])
    open_view(page, html.as_uri())
    assert_run_matches(page, shown)  # charts drawn with the hostile labels, table whole
    assert page.locator("#injected").count() == 0


def chart_color_becomes(page, color: str, frames: int = 300) -> bool:
    """Poll ``Chart.defaults.color`` once per animation frame (a string predicate for
    ``wait_for_function`` would be evaluated as code, which the page's CSP forbids)."""
    read_next_frame = (
        "() => new Promise(done => requestAnimationFrame(() => done(Chart.defaults.color)))"
    )
    return any(page.evaluate(read_next_frame) == color for _ in range(frames))


def text_filter_keeps_only(page, table: str, text: str) -> None:
    """Typing part of a question's text leaves only the rows that contain it, itself among them."""
    word = max(text.split(), key=len)
    page.fill("input[data-filter=text]", word)
    shown = page.locator(f"table.{table} tbody tr:visible").all_inner_texts()
    assert shown and len(shown) < page.locator(f"table.{table} tbody tr").count()
    assert any(text in row for row in shown)
    assert all(word.lower() in row.lower() for row in shown)
    page.fill("input[data-filter=text]", "")


def test_question_texts_on_every_page_searchable_and_shown_whole(
    page, demo_db, viewer_url, tmp_path
):
    run_id = newest_run(demo_db)
    js, html = tmp_path / "run.json", tmp_path / "run.html"
    reval("runs", "show", run_id, "--db", demo_db, "--format", "json", "--output", str(js))
    reval("runs", "show", run_id, "--db", demo_db, "--format", "html", "--output", str(html))
    questions = json.loads(js.read_text())["runs"][0]["questions"]
    text = questions[-1]["text"]
    assert text and all(q["text"] for q in questions)

    for url in (html.as_uri(), f"{viewer_url}/runs/{run_id}"):
        open_view(page, url)
        cells = page.locator("table.questions tbody td:first-child .asked").all_inner_texts()
        assert cells == [q["text"] for q in questions]
        text_filter_keeps_only(page, "questions", text)
        box = page.locator(".table-box .table-scroll").first
        assert box.evaluate("b => b.scrollHeight > b.clientHeight")  # 23 rows scroll inside
        page.click("[data-show-all]")
        assert box.evaluate("b => b.scrollHeight <= b.clientHeight")  # every row on the page
        page.click("[data-show-all]")
        page.emulate_media(media="print")
        assert box.evaluate("b => b.scrollHeight <= b.clientHeight")  # printed whole
        page.emulate_media(media="screen")
        latency = page.locator('.card[data-metric="latency"] .rate').inner_text()
        assert latency.endswith(" ms")
        assert page.locator(".meta .duration").inner_text().endswith((" ms", " s"))

    with RunStore.open(demo_db) as store:
        ids = [s.run_id for s in store.list_runs(limit=3)]
    open_view(page, f"{viewer_url}/compare?" + "&".join(f"run={i}" for i in ids))
    page.select_option("select[data-filter=disagree]", "")
    grid = page.locator("table.grid tbody td:first-child .asked").all_inner_texts()
    assert text in grid
    text_filter_keeps_only(page, "grid", text)
    names = page.locator("table.runs tbody td.run-name b").all_inner_texts()
    assert names[0].startswith("A · chunking words=") and all(" · chunking" in n for n in names)
    grid_heads = page.locator("table.grid thead th[data-run-id]").all_inner_texts()
    assert [h.strip() for h in grid_heads] == [n.split(" · ")[0] for n in names]


def test_runs_list_shows_configuration_and_rates_in_a_narrow_window(page, demo_db, viewer_url):
    with RunStore.open(demo_db) as store:
        summaries = store.list_runs(limit=None)
    page.set_viewport_size({"width": 800, "height": 900})
    open_view(page, viewer_url + "/")
    configs = page.locator("table.runs tbody td.retriever .config").all_inner_texts()
    assert configs == [s.variant for s in summaries]  # visible, not in a tooltip
    box = page.locator(".table-scroll").bounding_box()
    for metric in ("top1_hit_rate", "top3_hit_rate"):
        cell = page.locator(f'table.runs tbody td[data-metric="{metric}"]').first.bounding_box()
        assert cell["x"] + cell["width"] <= box["x"] + box["width"]
    link = page.locator("table.runs tbody td.id a").first
    assert link.evaluate("a => a.getClientRects().length") == 1  # the id is on one line
    page.click("header.top a[href='/judge']")
    assert "reval ui --judge draft.yaml --corpus corpus.jsonl" in page.inner_text("main")
