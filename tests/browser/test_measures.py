"""``reval ui`` in a real browser shows the IR measures runs stored: the run page, the
comparison and the history carry each measure's mean, its denominator and convention as
the store holds them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from support.browser import debian_chromium, open_view
from support.cli import TableRetriever
from support.measured import BASE, CAND, MEASURES, write_measured_set
from support.tools import load_tool

from retrieval_eval import serve
from retrieval_eval.cli.main import cli
from retrieval_eval.store.store import RunStore

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def measured_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Two runs of the graded set with measures, stored through ``reval eval``."""
    tmp = tmp_path_factory.mktemp("measured")
    db, set_file = f"sqlite:///{tmp / 'runs.sqlite'}", write_measured_set(tmp)
    for answers in (BASE, CAND):
        handle = serve(TableRetriever(answers, identifier="s"))  # type: ignore[arg-type]
        try:
            args = ["eval", "--set", str(set_file), "--retriever", f"grpc://{handle.address}",
                    "--db", db, "--measures", MEASURES]  # fmt: skip
            done = CliRunner().invoke(cli, args, catch_exceptions=False)
            assert done.exit_code in (0, 1), done.output
        finally:
            handle.stop(grace=None)
    return db


@pytest.fixture(scope="module")
def browser(measured_db: str) -> Iterator[object]:
    """This module's browser, started after its store is filled (see ``conftest``)."""
    with debian_chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def measured_url(measured_db: str) -> Iterator[str]:
    with load_tool("screenshots").viewer(measured_db) as base:
        yield base


def mean(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def test_the_viewer_shows_the_stored_measures_on_every_page(page, measured_db, measured_url):
    with RunStore.open(measured_db) as store:
        base, cand = (store.get(s.run_id) for s in reversed(store.list_runs(limit=2)))

    open_view(page, f"{measured_url}/runs/{cand.run_id}")
    table = page.locator("table.measures")
    assert table.get_attribute("data-convention") == "reval's means"
    heading = page.locator("h2").filter(has_text="IR measures").inner_text()
    assert heading == "IR measures (reval's means)"
    assert table.locator("tbody tr").evaluate_all("rs => rs.map(r => r.dataset.measure)") == list(
        cand.measures)  # fmt: skip
    for name, m in cand.measures.items():
        row = table.locator(f'tr[data-measure="{name}"]')
        assert row.locator(".value").inner_text() == mean(m.value)
        over = f"{m.count} questions" + (f" ({m.left_out} left out)" if m.left_out else "")
        assert row.locator(".over").inner_text() == over
    assert cand.measures["AP"].left_out == 1  # the no-answer question

    open_view(page, f"{measured_url}/compare?run={base.run_id}&run={cand.run_id}")
    for name in cand.measures:
        row = page.locator(f'table.measures tr[data-measure="{name}"]')
        ref = row.locator(f'td[data-run-id="{base.run_id}"]')
        assert ref.locator(".value").inner_text() == mean(base.measures[name].value)
        cell = row.locator(f'td[data-run-id="{cand.run_id}"]')
        assert cell.locator(".value").inner_text() == mean(cand.measures[name].value)
        assert cell.locator(".count").inner_text() == str(cand.measures[name].count)
        b, c = base.measures[name].value, cand.measures[name].value
        delta = "–" if b is None or c is None else f"{c - b:+.4f}"
        assert cell.locator(".delta").inner_text() == f"Δ {delta}"

    open_view(page, f"{measured_url}/history?set=settings&retriever=s")
    for run in (base, cand):
        row = page.locator(f'table.measures tr[data-run-id="{run.run_id}"]')
        assert row.locator("td").last.inner_text() == "reval's means"
        for name, m in run.measures.items():
            assert row.locator(f'td[data-measure="{name}"] .value').inner_text() == mean(m.value)
