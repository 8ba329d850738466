"""Judged@k in the views, from real ``reval`` runs against a live gRPC retriever: the run
report (text, JSON, Markdown, HTML), ``runs show`` of the stored run, ``reval ui``'s run
page, ``runs compare`` in every format, a rescore against newer labels; and nothing new
for a plain-label set.

The figures are checked by hand: the graded set below and the rankings of ``GOOD`` (faq-1
d1 d9, faq-2 d2 d7, faq-3 d8 d9 d4, faq-4 nothing) give Judged@3 1, 1/2, 2/3 (faq-4
got nothing back, so is not counted); ``STALE`` brings back documents nobody judged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from support.cli import GOOD

from retrieval_eval.store.store import RunStore
from retrieval_eval.web.app import create_app

GRADED = """\
name: graded
grade_scale: [0, 3]
questions:
  - {id: faq-1, question: question faq-1, form: MATCH, hard_class: near-duplicate,
     judgments: {d1: 3, d9: 1}}
  - {id: faq-2, question: question faq-2, form: GAP, hard_class: near-duplicate,
     judgments: {d2: 1}}
  - {id: faq-3, question: question faq-3, form: GAP, judgments: {d3: 2, d4: 1, d8: 0}}
  - {id: faq-4, question: question faq-4, form: MATCH, judgments: {d5: 0}}
"""
#: A candidate whose top documents the set never judged (but for d1 and d2).
STALE = {
    "question faq-1": ["x1#0", "x2#0", "d1#0"],
    "question faq-2": ["x3#0", "d2#0"],
    "question faq-3": ["x4#0", "x5#0", "x6#0"],
    "question faq-4": [],
}
#: (value, count, unjudged) of the good run by group.
GOOD_FIGURES = {
    ("overall", "overall"): ((1 + 1 / 2 + 2 / 3) / 3, 3, 2),
    ("form", "MATCH"): (1.0, 1, 0),
    ("form", "GAP"): ((1 / 2 + 2 / 3) / 2, 2, 2),
    ("hard_class", "near-duplicate"): (3 / 4, 2, 1),
    ("hard_class", "unclassified"): (2 / 3, 1, 1),
}
STALE_OVERALL = ((1 / 3 + 1 / 2 + 0) / 3, 3, 6)


@pytest.fixture
def graded(tmp_path: Path) -> Path:
    path = tmp_path / "graded.yaml"
    path.write_text(GRADED, encoding="utf-8")
    return path


def figures(judged: dict) -> dict[tuple[str, str], tuple[float | None, int, int]]:
    """The JSON ``judged`` key as {(kind, name): (value, count, unjudged)}."""
    groups = {("overall", "overall"): judged["overall"]}
    for kind in ("form", "hard_class"):
        for name, share in judged[f"by_{kind}"].items():
            groups[kind, name] = share
    return {key: (s["value"], s["count"], s["unjudged"]) for key, s in groups.items()}


def assert_good(judged: dict) -> None:
    assert judged["measure"] == "Judged@3" and judged["k"] == 3
    got = figures(judged)
    assert set(got) == set(GOOD_FIGURES)
    for key, (value, count, unjudged) in GOOD_FIGURES.items():
        assert got[key][0] == pytest.approx(value), key
        assert got[key][1:] == (count, unjudged), key


def test_the_run_report_shows_judged_at_k_in_every_format(
    graded, serve_table, db, invoke, tmp_path
):
    target = serve_table(GOOD, identifier="good")
    done = invoke("eval", "--set", graded, "--retriever", target, "--db", db, "--format", "json")
    run = json.loads(done.stdout)["runs"][0]
    assert_good(run["judged"])
    assert figures(run["judged"])["hard_class", "unclassified"][1] == 1  # faq-4 not counted
    # the stored run (outcomes and judgments read back) gives the same figures
    shown = json.loads(invoke("runs", "show", run["run_id"], "--db", db, "--format", "json").stdout)
    assert shown["runs"][0]["judged"] == run["judged"]
    text = invoke("runs", "show", run["run_id"], "--db", db).output
    rows = {line.split("  ")[0].strip(): line.split() for line in text.splitlines()}
    assert "Judged@3: how much of the top 3 the set judged" in text
    assert rows["overall"][-3:] == ["0.722", "3", "2"]
    assert rows["form GAP"][-3:] == ["0.583", "2", "2"]
    assert rows["class near-duplicate"][-3:] == ["0.750", "2", "1"]
    assert "labels are stale for this retriever" in text
    markdown = invoke("runs", "show", run["run_id"], "--db", db, "--format", "markdown").stdout
    assert "<summary>Judged@3 of graded × good 1: 0.722 (3 questions, 2 unjudged)</summary>" in (
        markdown
    )
    assert "| form MATCH | 1.000 | 1 | 0 |" in markdown
    out = tmp_path / "report.html"
    invoke("runs", "show", run["run_id"], "--db", db, "--format", "html", "--output", out)
    html = out.read_text(encoding="utf-8")
    assert '<table class="judged" data-measure="Judged@3">' in html
    row = '<tr data-group="form" data-name="GAP"><td>form GAP</td><td class="num value">'
    assert (
        row + '0.583</td><td class="num count">2</td><td class="num unjudged-count">2</td>' in html
    )
    # reval ui's run page is the same view, served from the store
    with (
        RunStore.open(db) as store,
        TestClient(create_app(store), base_url="http://127.0.0.1") as ui,
    ):
        page = ui.get(f"/runs/{run['run_id']}")
    assert page.status_code == 200
    overall = '<tr data-group="overall" data-name="overall"><td>overall</td>'
    assert overall + '<td class="num value">0.722' in page.text


def test_compare_shows_each_runs_judged_at_k_beside_it(graded, serve_table, db, invoke, tmp_path):
    ids = []
    for answers, name in ((GOOD, "good"), (STALE, "stale")):
        target = serve_table(answers, identifier=name)
        done = invoke("eval", "--set", graded, "--retriever", target, "--db", db,
                      "--format", "json")  # fmt: skip
        ids.append(json.loads(done.stdout)["runs"][0]["run_id"])
    compared = json.loads(invoke("runs", "compare", *ids, "--db", db, "--format", "json").stdout)
    assert_good(compared["runs"][0]["judged"])
    stale = compared["runs"][1]["judged"]["overall"]
    assert (stale["value"], stale["count"], stale["unjudged"]) == (
        pytest.approx(STALE_OVERALL[0]), *STALE_OVERALL[1:],
    )  # fmt: skip
    text = invoke("runs", "compare", *ids, "--db", db).output
    assert "Judged@3: how much of each run's top 3 the set judged" in text
    overall = next(line for line in text.splitlines() if line.startswith("overall "))
    assert overall.split() == ["overall", "3", "0.722", "(2", "unjudged)", "0.278", "(6",
                               "unjudged)"]  # fmt: skip
    markdown = invoke("runs", "compare", *ids, "--db", db, "--format", "markdown").stdout
    assert ("| overall | 0.722 (3 questions, 2 unjudged) | 0.278 (3 questions, 6 unjudged) |"
            in markdown)  # fmt: skip
    out = tmp_path / "compare.html"
    invoke("runs", "compare", *ids, "--db", db, "--format", "html", "--output", out)
    html = out.read_text(encoding="utf-8")
    start = html.index('<h2 id="judged">')
    section = html[start : html.index("</table>", start)]
    assert section.count('<span class="value">0.278</span>') == 1
    assert f'data-run-id="{ids[1]}"><span class="value">0.278' in section


def test_a_rescore_against_newer_labels_moves_judged_at_k(
    graded, serve_table, db, invoke, tmp_path
):
    target = serve_table(STALE, identifier="stale")
    done = invoke("eval", "--set", graded, "--retriever", target, "--db", db, "--format", "json")
    run_id = json.loads(done.stdout)["runs"][0]["run_id"]
    judged_more = tmp_path / "judged-more.yaml"
    more = GRADED.replace("{d2: 1}", "{d2: 1, x3: 0}")
    judged_more.write_text(more.replace("{d1: 3, d9: 1}", "{d1: 3, x1: 0, x2: 1}"))
    rescored = invoke(
        "runs", "rescore", run_id, "--set", judged_more, "--db", db, "--format", "json"
    )
    overall = json.loads(rescored.stdout)["runs"][0]["judged"]["overall"]
    # faq-1: all 3 judged now, faq-2: both, faq-3: none
    assert (overall["value"], overall["count"], overall["unjudged"]) == (pytest.approx(2 / 3), 3, 3)


def test_a_plain_label_set_shows_nothing_new(sets, serve_table, db, invoke, tmp_path):
    target = serve_table(GOOD, identifier="good")
    done = invoke(
        "eval", "--set", sets["faq"], "--retriever", target, "--db", db, "--format", "json"
    )
    run = json.loads(done.stdout)["runs"][0]
    assert "judged" not in run
    other = serve_table(STALE, identifier="stale")
    second = invoke(
        "eval", "--set", sets["faq"], "--retriever", other, "--db", db, "--format", "json"
    )
    ids = [run["run_id"], json.loads(second.stdout)["runs"][0]["run_id"]]
    out = tmp_path / "page.html"
    outputs = [
        invoke("runs", "show", ids[0], "--db", db).output,
        invoke("runs", "show", ids[0], "--db", db, "--format", "markdown").stdout,
        invoke("runs", "compare", *ids, "--db", db).output,
        invoke("runs", "compare", *ids, "--db", db, "--format", "markdown").stdout,
        invoke("runs", "compare", *ids, "--db", db, "--format", "json").stdout,
    ]
    for fmt, command in (("html", "show"), ("html", "compare")):
        args = [ids[0]] if command == "show" else ids
        invoke("runs", command, *args, "--db", db, "--format", fmt, "--output", out)
        outputs.append(out.read_text(encoding="utf-8"))
    for output in outputs:
        assert "Judged@" not in output and '"judged"' not in output
