"""The HTML pages show the IR measures a run stored, through real ``reval`` commands: the
run report (``eval --format html``), the comparison and the history carry each measure's
mean, its denominator and the convention exactly as their JSON reports do; a comparison
names the measures not every run stored instead of comparing them; pages of runs without
measures have no measures section."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from support.measured import BASE, CAND, MEASURES, N
from support.measured import write_measured_set as write_set

VOID = frozenset(("br", "img", "input", "meta", "link", "hr", "wbr"))


class MeasureCells(HTMLParser):
    """The figures of every ``table.measures``: (run id, measure) -> {class: text} for the
    elements classed value, count, left-out and delta, each keyed by the nearest
    ``data-run-id`` and ``data-measure`` around it; and each table's ``data-convention``."""

    CLASSES = ("value", "count", "left-out", "delta")

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict[str, str]] = []
        self.cells: dict[tuple[str, str], dict[str, str]] = {}
        self.conventions: list[str] = []
        self.capturing: list[tuple[tuple[str, str], str, int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "table" and "measures" in a.get("class", "").split():
            self.stack = [a]
            self.conventions.append(a.get("data-convention", ""))
            return
        if not self.stack or tag in VOID:
            return
        self.stack.append(a)
        name = next((c for c in a.get("class", "").split() if c in self.CLASSES), None)
        if name is not None:
            run = next((s["data-run-id"] for s in reversed(self.stack) if "data-run-id" in s), "")
            measure = next(s["data-measure"] for s in reversed(self.stack) if "data-measure" in s)
            self.cells.setdefault((run, measure), {})[name] = ""
            self.capturing.append(((run, measure), name, len(self.stack)))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or tag in VOID:
            return
        if self.capturing and self.capturing[-1][2] == len(self.stack):
            self.capturing.pop()
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.capturing:
            key, name, _ = self.capturing[-1]
            self.cells[key][name] += data


def cells_of(page: Path) -> MeasureCells:
    parser = MeasureCells()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def mean(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def test_the_run_comparison_and_history_pages_show_the_stored_measures(
    serve_table, db, tmp_path, invoke
):
    set_file = write_set(tmp_path)
    runs = []
    for answers, asked in ((BASE, MEASURES), (CAND, MEASURES), (CAND, "P@1,AP")):
        page, report = tmp_path / f"run{len(runs)}.html", tmp_path / f"run{len(runs)}.json"
        target = serve_table(answers, identifier="s")
        done = invoke("eval", "--set", set_file, "--retriever", target, "--db", db,
                      "--measures", asked, "--format", "html", "--output", page,
                      "--report", f"json:{report}")  # fmt: skip
        assert done.exit_code in (0, 1), done.output
        (run,) = json.loads(report.read_text())["runs"]
        runs.append(run)
        cells = cells_of(page)
        measures = run["measures"]
        assert cells.conventions == ["reval's means"] == [f"{measures['convention']}'s means"]
        assert list(cells.cells) == [("", name) for name in measures["values"]]
        for name, m in measures["values"].items():
            shown = cells.cells[("", name)]
            assert shown["value"] == mean(m["value"]) and shown["count"] == str(m["count"])
            assert shown.get("left-out", "0") == str(m["left_out"])
    first = runs[0]["measures"]["values"]
    assert first["AP"]["left_out"] == 1 and first["AP"]["count"] == N  # q6: nothing to find
    assert first["P@1"]["count"] == N + 1

    base, cand, fewer = (r["run_id"] for r in runs)
    page = tmp_path / "compare.html"
    compare = ("runs", "compare", base, cand, fewer, "--db", db, "--format")
    assert invoke(*compare, "html", "--output", page).exit_code == 0
    compared = json.loads(invoke(*compare, "json").output)
    assert compared["measure_names"] == ["P@1", "AP"]
    cells = cells_of(page)
    assert {m for _, m in cells.cells} == {"P@1", "AP"}
    deltas = {(v["run_id"], d["metric"]): d["delta"] for v in compared["versus"]
              for d in v["deltas"]}  # fmt: skip
    for run in compared["runs"]:
        for name in compared["measure_names"]:
            m, shown = run["measures"]["values"][name], cells.cells[(run["run_id"], name)]
            assert (shown["value"], shown["count"]) == (mean(m["value"]), str(m["count"]))
            if run["run_id"] == base:
                assert "delta" not in shown
            else:
                assert shown["delta"] == f"Δ {deltas[(run['run_id'], name)]:+.4f}"
    assert deltas[(cand, "AP")] < 0  # the candidate ranks two targets second
    html = page.read_text(encoding="utf-8")
    assert 'data-note="measures-left-out"' in html
    assert "Not every run stored RR, nDCG@3, Judged@2: not compared." in html

    page = tmp_path / "history.html"
    history_of = ("runs", "history", "--set", "settings", "--retriever", "s", "--db", db)
    assert invoke(*history_of, "--format", "html", "--output", page).exit_code == 0
    history = json.loads(invoke(*history_of, "--format", "json").output)
    cells = cells_of(page)
    expected = {}
    for entry in history["entries"]:
        for name, m in entry["measures"]["values"].items():
            shown = {"value": mean(m["value"]), "count": str(m["count"])}
            expected[(entry["run_id"], name)] = shown
    assert cells.cells == expected
    assert len(expected) == 2 * 5 + 2


def test_pages_of_runs_without_measures_have_no_measures_section(serve_table, db, tmp_path, invoke):
    set_file = write_set(tmp_path)
    target = serve_table(BASE, identifier="s")
    for _ in range(2):
        invoke("eval", "--set", set_file, "--retriever", target, "--db", db)
    page = tmp_path / "run.html"
    invoke("eval", "--set", set_file, "--retriever", target, "--db", db, "--format", "html",
           "--output", page)  # fmt: skip
    ids = [r["run_id"] for r in json.loads(invoke("runs", "list", "--db", db, "--format",
                                                  "json").output)["runs"]]  # fmt: skip
    compare, history = tmp_path / "compare.html", tmp_path / "history.html"
    invoke("runs", "compare", *ids[:2], "--db", db, "--format", "html", "--output", compare)
    invoke("runs", "history", "--set", "settings", "--retriever", "s", "--db", db,
           "--format", "html", "--output", history)  # fmt: skip
    for shown in (page, compare, history):
        html = shown.read_text(encoding="utf-8")
        assert "IR measures" not in html and 'class="measures"' not in html, shown
