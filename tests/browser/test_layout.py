"""The views read in the order a person reads them, in a real browser at 1400x1000: the
history's bands never span a change of variant, its dates stay on one line and its
variants are a table of what differs; it reads stored figures only until the flaky
questions are asked for; a run page leads with the verdict and the figures, its warnings
after the charts; the comparison of the embedding swap shows ``dims=256`` and ``dims=64``
whole."""

from __future__ import annotations

import pytest
from support.browser import chart_state, open_view

from retrieval_eval.store.store import RunStore

pytestmark = pytest.mark.browser


@pytest.fixture
def wide(page):
    page.set_viewport_size({"width": 1400, "height": 1000})
    return page


def runs_of(db: str, identifier: str) -> list:
    with RunStore.open(db) as store:
        return [r for r in store.list_runs(limit=None) if r.retriever_identifier == identifier]


def test_history_bands_break_where_the_variant_changes(wide, demo_db, viewer_url):
    bm25 = runs_of(demo_db, "bm25")
    open_view(wide, f"{viewer_url}/history?set={bm25[0].set_name}&retriever=bm25")
    chart = chart_state(wide, "history")
    assert chart["painted"] > 0
    keys = wide.evaluate(  # the chart's own variant of each point, oldest first
        "() => JSON.parse(document.querySelector('figure[data-name=history] script')"
        ".textContent).variants"
    )
    assert len(set(keys)) == 2  # two chunkings: the small one between big ones
    bands = [d for d in chart["datasets"] if "95%" in d["label"]]
    assert len(bands) > 4  # a band per stretch of one variant, for top-1 and top-3
    for band in bands:
        shown = [i for i, x in enumerate(band["data"]) if x is not None]
        assert len({keys[i] for i in shown}) == 1, band  # never across a change
        assert shown == list(range(shown[0], shown[-1] + 1))
    # a date is one line, the variants a table of what differs, one row each
    cell = wide.locator("table.history tbody td.nowrap").first
    assert cell.evaluate("td => td.getClientRects().length") == 1
    height = cell.evaluate("td => td.getBoundingClientRect().height")
    line = cell.evaluate("td => parseFloat(getComputedStyle(td).lineHeight) || 20")
    assert height < 2 * line + 8
    rows = wide.locator("table.variants tbody tr")
    assert rows.count() == 2
    assert "chunking words=150" in rows.nth(0).inner_text()
    assert "chunking words=60" in rows.nth(1).inner_text()


def test_history_reads_figures_first_and_questions_on_request(wide, demo_db, viewer_url):
    bm25 = runs_of(demo_db, "bm25")
    here = f"{viewer_url}/history?set={bm25[0].set_name}&retriever=bm25"
    open_view(wide, here)
    rates = wide.locator('table.history td[data-metric="top1_hit_rate"]').all_inner_texts()
    assert rates == [f"{r.top1_hit_rate:.3f}" for r in bm25]  # the stored figures
    counts = wide.locator("table.history tbody td.num:nth-child(5)").all_inner_texts()
    assert counts == [str(r.question_count) for r in bm25]  # counted without the outcomes
    note = wide.locator('[data-note="questions-on-request"]')
    assert note.count() == 1 and "Never hit" not in wide.inner_text("main")
    note.locator("a").click()
    wide.wait_for_selector("html[data-ready]")
    assert "questions=1" in wide.url
    assert wide.locator('[data-note="questions-on-request"]').count() == 0
    assert "Never hit (top-3)" in wide.inner_text("main")


def test_a_run_page_leads_with_the_verdict_and_puts_warnings_after_the_charts(
    wide, demo_db, viewer_url
):
    dense = runs_of(demo_db, "dense")  # the 64-dimension run: a regression with warnings
    open_view(wide, f"{viewer_url}/runs/{dense[0].run_id}")
    order = wide.evaluate(
        """() => ['.cards', '.verdict', '.charts', '.warnings'].map(
             s => document.querySelector('section.run ' + s))
           .map(e => e ? e.getBoundingClientRect().top + window.scrollY : null)"""
    )
    assert None not in order and order == sorted(order), order
    verdict = wide.locator(".verdict").first
    assert verdict.get_attribute("data-verdict") == "regression"
    assert "warning:" not in verdict.inner_text()  # a link to them, not the warnings
    assert wide.locator("section.run .warnings li").count() >= 2


def test_the_embedding_swap_comparison_shows_what_differs_whole(wide, demo_db, viewer_url):
    dense = runs_of(demo_db, "dense")
    compared = "&".join(f"run={r.run_id}" for r in reversed(dense))
    open_view(wide, f"{viewer_url}/compare?{compared}")
    heads = wide.locator("table.metrics thead th.run-head").all_inner_texts()
    assert "dims=256" in heads[0] and "dims=64" in heads[1], heads
    assert not any("..." in h or h.strip()[-1] == "…" for h in heads), heads
    differs = wide.locator("table.runs tbody td.config").first.inner_text()
    assert "dims=256" in differs
