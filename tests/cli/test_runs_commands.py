"""``reval runs``: history over runs stored by real ``reval eval`` invocations."""

from __future__ import annotations

import json
import uuid

import ir_measures
import pytest
from ir_measures import RR, Success
from support.cli import BAD, FAIL, FAQ, GOOD, run_reval

from retrieval_eval.errors import IncompleteRun, InputError, UnknownNameError


@pytest.fixture
def history(sets, serve_table, db, invoke):
    """Three faq runs: good (s), bad (s, labelled), and a different retriever (other)."""
    good = serve_table(GOOD, identifier="s")
    bad = serve_table(BAD, identifier="s")
    other = serve_table(BAD, identifier="other")
    for target, label in ((good, "first"), (bad, "second"), (other, "third")):
        result = invoke(
            "eval",
            "--set",
            sets["faq"],
            "--retriever",
            target,
            "--db",
            db,
            "--label",
            f"step={label}",
            "--format",
            "json",
        )
        assert result.exit_code == 0, result.output
    listed = json.loads(invoke("runs", "list", "--db", db, "--format", "json").stdout)["runs"]
    return {r["labels"]["step"]: r for r in listed}


def test_list_filters_by_set_retriever_and_label(history, invoke, db):
    assert [r["retriever"]["identifier"] for r in history.values()] == ["other", "s", "s"]
    by_label = json.loads(
        invoke("runs", "list", "--db", db, "--label", "step=second", "--format", "json").output
    )["runs"]
    assert [r["run_id"] for r in by_label] == [history["second"]["run_id"]]
    by_retriever = invoke("runs", "list", "--db", db, "--retriever", "s").output
    assert history["first"]["run_id"] in by_retriever
    assert history["third"]["run_id"] not in by_retriever
    none = invoke("runs", "list", "--db", db, "--set", "nope", "--format", "json").output
    assert json.loads(none)["runs"] == []
    table = invoke("runs", "list", "--db", db).output
    assert "step=first" in table and "0.750" in table


def test_show_prints_the_stored_run(history, invoke, db):
    run_id = history["second"]["run_id"]
    shown = json.loads(invoke("runs", "show", run_id[:-1], "--db", db, "--format", "json").stdout)
    (run,) = shown["runs"]
    assert run["run_id"] == run_id and len(run["questions"]) == len(FAQ)
    assert run["questions"][1]["ranked_document_ids"] == ["d7", "d6", "d5", "d2"]
    text = invoke("runs", "show", run_id, "--db", db).output
    assert "faq × s 1" in text and "expected d2; got d7, d6, d5" in text
    assert "variant: s 1 · grpc://127.0.0.1:" in text
    table = invoke("runs", "list", "--db", db).output
    assert "s-A" in table and "regression" in table  # the variant by its short name,
    assert "  s-A  grpc://127.0.0.1:" in table  # and where it ran under the table


def test_show_reports_the_verdict_stored_with_the_run_in_every_format(history, invoke, db):
    first, second = history["first"]["run_id"], history["second"]["run_id"]
    shown = json.loads(invoke("runs", "show", second, "--db", db, "--format", "json").stdout)
    regression = shown["runs"][0]["regression"]
    assert regression["verdict"] == "regression" and regression["baseline_run_id"] == first
    junit = invoke("runs", "show", second, "--db", db, "--format", "junit").stdout
    assert '<failure type="regression"' in junit and "no regression check" not in junit
    markdown = invoke("runs", "show", second, "--db", db, "--format", "markdown").stdout
    assert markdown.startswith("### reval: ❌ 1 of 1 run failed the gate (1 regression)")
    assert "✅" not in markdown
    assert "❌ regression" in markdown
    text = invoke("runs", "show", second, "--db", db).output
    assert f"regression verdict: REGRESSION vs baseline {first}" in text
    first_md = invoke("runs", "show", first, "--db", db, "--format", "markdown").stdout
    assert first_md.startswith("### reval: ➖ no regression found; 1 of 1 run not checked")
    assert "✅" not in first_md and "➖ no baseline" in first_md


def test_show_can_judge_again_against_another_baseline(history, invoke, db):
    first, second = history["first"]["run_id"], history["second"]["run_id"]
    args = ("runs", "show", first, "--db", db, "--format", "json", "--baseline", second)
    regression = json.loads(invoke(*args).stdout)["runs"][0]["regression"]
    assert regression["verdict"] == "pass" and regression["baseline_run_id"] == second
    strict = json.loads(invoke(*args, "--max-top1-drop", "0").stdout)["runs"][0]["regression"]
    assert strict["verdict"] == "pass"  # first is better than second: nothing dropped


def test_compare_runs_side_by_side_in_every_format(history, invoke, db, sets, serve_table):
    a, b, c = (history[k]["run_id"] for k in ("first", "third", "second"))
    out = json.loads(invoke("runs", "compare", a, b, c, "--db", db, "--format", "json").stdout)
    assert [r["run_id"] for r in out["runs"]] == [a, b, c]
    assert [r["retriever"]["identifier"] for r in out["runs"]] == ["s", "other", "s"]
    assert out["reference_run_id"] == a and out["settings"]["correction"] == "holm"
    versus = {v["run_id"]: v for v in out["versus"]}
    top1 = next(d for d in versus[b]["deltas"] if d["metric"] == "top1_hit_rate")
    assert top1["delta"] == pytest.approx(-0.75)
    assert top1["interval"][0] <= -0.75 <= top1["interval"][1]
    test1 = next(t for t in versus[b]["tests"] if t["k"] == 1)
    assert (test1["wins"], test1["losses"]) == (0, 3)
    assert test1["p_holm"] >= test1["p_value"]
    assert versus[b]["verdict"]["verdict"] == "regression"
    assert versus[b]["overlap"]["rbo_p"] == 0.9
    assert {q["id"] for q in out["questions"]} >= {"faq-1", "faq-2", "faq-4"}
    assert all(q["disagree"] for q in out["questions"])
    every = invoke("runs", "compare", a, b, "--db", db, "--format", "json", "--questions", "all")
    assert len(json.loads(every.stdout)["questions"]) == len(FAQ)
    text = invoke("runs", "compare", a, b, c, "--db", db).output
    assert "Holm's correction across the 2 runs compared" in text
    assert "RBO persistence p = 0.9" in text and "mean Jaccard" in text
    assert "questions differ between the runs" in text
    markdown = invoke("runs", "compare", a, b, c, "--db", db, "--format", "markdown").stdout
    rows = [line for line in markdown.splitlines() if line.startswith(("| A", "| B", "| C"))]
    assert len(rows) == 3 and f"`{c}`" in rows[2]
    assert "Holm's correction" in markdown


def test_compare_reports_runs_of_other_sets_incomparable(history, invoke, db, sets, serve_table):
    good = serve_table(GOOD, identifier="s")
    invoke("eval", "--set", sets["support"], good, "--db", db, "--label", "step=support")
    (support,) = json.loads(
        invoke("runs", "list", "--db", db, "--set", "support", "--format", "json").stdout
    )["runs"]
    a = history["first"]["run_id"]
    out = json.loads(
        invoke("runs", "compare", a, history["second"]["run_id"], support["run_id"], "--db", db,
               "--format", "json").stdout
    )  # fmt: skip
    assert [i["run_id"] for i in out["incomparable"]] == [support["run_id"]]
    text = invoke("runs", "compare", a, support["run_id"], "--db", db).output
    assert f"incomparable, left out: {support['run_id']}" in text
    usage = run_reval("runs", "compare", a, "--db", db)
    assert usage.returncode == 2 and "at least two runs" in usage.stderr


def test_history_of_one_set_and_retriever(history, invoke, db):
    first, second = history["first"]["run_id"], history["second"]["run_id"]
    invoke("runs", "pin", first, "--db", db)
    args = ("runs", "history", "--set", "faq", "--retriever", "s", "--db", db)
    out = json.loads(invoke(*args, "--format", "json").stdout)
    assert [e["run_id"] for e in out["entries"]] == [second, first]
    assert [e["pinned"] for e in out["entries"]] == [False, True]
    assert out["entries"][0]["verdict"]["verdict"] == "regression"
    assert out["entries"][1]["verdict"]["verdict"] == "no-baseline"
    assert out["entries"][0]["top1"]["count"] == 4
    assert {f["id"] for f in out["flaky"]} == {"faq-1", "faq-2", "faq-4"}
    text = invoke(*args).output
    assert f"{first} *" in text and "regression" in text and "flaky questions" in text
    markdown = invoke(*args, "--format", "markdown", "--limit", "1").stdout
    assert f"`{second}`" in markdown and f"`{first}`" not in markdown


def test_pin_makes_the_baseline_and_unpin_releases_it(history, invoke, db, sets, serve_table):
    first = history["first"]["run_id"]
    assert invoke("runs", "pin", first, "--db", db).output.startswith(f"pinned {first}")
    bad = serve_table(BAD, identifier="s")
    judged = json.loads(
        invoke(
            "eval", "--set", sets["faq"], bad, "--db", db, "--no-save", "--format", "json"
        ).output
    )
    assert judged["runs"][0]["regression"]["baseline_run_id"] == first
    assert judged["runs"][0]["regression"]["verdict"] == "regression"
    invoke("runs", "unpin", first, "--db", db)
    second = history["second"]["run_id"]
    invoke("runs", "pin", second, "--db", db)  # a pin overrides: even a regressed run
    judged = json.loads(
        invoke(
            "eval", "--set", sets["faq"], bad, "--db", db, "--no-save", "--format", "json"
        ).output
    )
    assert judged["runs"][0]["regression"]["baseline_run_id"] == second
    assert judged["runs"][0]["regression"]["verdict"] == "pass"
    invoke("runs", "unpin", second, "--db", db)
    judged = json.loads(
        invoke(
            "eval", "--set", sets["faq"], bad, "--db", db, "--no-save", "--format", "json"
        ).output
    )
    # Unpinned, the newest accepted run is the baseline: the second run regressed, so it
    # never became one by itself.
    assert judged["runs"][0]["regression"]["baseline_run_id"] == first
    assert judged["runs"][0]["regression"]["verdict"] == "regression"


def test_prune_keeps_the_newest_per_set_and_retriever(history, invoke, db):
    # The first run is its retriever's baseline (the second regressed): --keep 1 keeps it.
    first = history["first"]["run_id"]
    kept = run_reval("runs", "prune", "--keep", "1", "--dry-run", "--db", db)
    assert kept.stdout == ""
    assert f"keeping {first}: newest accepted run (the baseline)" in kept.stderr
    assert "would prune 0 runs " in kept.stderr
    invoke("runs", "accept", history["second"]["run_id"], "--reason", "intended", "--db", db)
    preview = run_reval("runs", "prune", "--keep", "1", "--dry-run", "--db", db)
    assert preview.stdout == history["first"]["run_id"] + "\n"
    assert "would prune 1 run " in preview.stderr
    assert (
        len(json.loads(invoke("runs", "list", "--db", db, "--format", "json").stdout)["runs"]) == 3
    )
    assert "pruned 1 run " in invoke("runs", "prune", "--keep", "1", "--db", db).output
    ids = invoke("runs", "list", "--db", db, "--ids").stdout.split()
    assert sorted(ids) == sorted([history["second"]["run_id"], history["third"]["run_id"]])
    left = json.loads(invoke("runs", "list", "--db", db, "--format", "json").stdout)["runs"]
    assert sorted(r["labels"]["step"] for r in left) == ["second", "third"]


def test_export_writes_trec_files_that_ir_measures_agrees_with(history, invoke, db, tmp_path):
    run_id = history["first"]["run_id"]
    qrels_file = tmp_path / "qrels.trec"
    result = run_reval("runs", "export", run_id, "--db", db, "--trec-run", "-",
                       "--qrels", str(qrels_file))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "left out 1 no-answer question" in result.stderr
    assert "relevance judgements" in result.stderr and "Q0" not in result.stderr
    run_file = tmp_path / "run.trec"
    run_file.write_text(result.stdout)
    qrels = list(ir_measures.read_trec_qrels(str(qrels_file)))
    scores = ir_measures.calc_aggregate(
        [Success @ 1, RR @ 3], qrels, ir_measures.read_trec_run(str(run_file))
    )
    # faq-4 (no answer) is left out of both; of faq-1..3, two hit at top-1, faq-3 at 3
    assert {r.query_id for r in ir_measures.read_trec_run(str(run_file))} == {
        "faq-1", "faq-2", "faq-3"}  # fmt: skip
    assert scores[Success @ 1] == pytest.approx(2 / 3)
    shown = json.loads(invoke("runs", "show", run_id, "--db", db, "--format", "json").stdout)
    assert scores[RR @ 3] == pytest.approx(shown["runs"][0]["metrics"]["mrr@3"])
    kept = run_reval("runs", "export", run_id, "--db", db, "--trec-run", "-", "--keep-no-answer")
    assert kept.returncode == 0 and "no-answer" not in kept.stderr  # faq-4 returned nothing
    both = run_reval("runs", "export", run_id, "--db", db, "--trec-run", "-", "--qrels", "-")
    assert both.returncode == 2 and "only one of --trec-run and --qrels" in both.stderr


def stored_first(listing: str) -> str:
    """The oldest run id of a ``runs list --format json`` listing."""
    return str(json.loads(listing)["runs"][-1]["run_id"])


def test_unknown_or_unpinnable_runs_are_input_errors(history, invoke, db, sets, serve_table):
    with pytest.raises(UnknownNameError, match="no-such-run"):
        invoke("runs", "show", "no-such-run", "--db", db)
    flaky = serve_table({**GOOD, "question faq-1": FAIL}, identifier="s")
    with pytest.raises(IncompleteRun):  # exit 3, after the run was stored
        invoke("eval", "--set", sets["faq"], flaky, "--db", db, "--label", "step=flaky")
    (incomplete,) = json.loads(
        invoke("runs", "list", "--db", db, "--label", "step=flaky", "--format", "json").stdout
    )["runs"]
    with pytest.raises(InputError, match="only a complete run can be a baseline"):
        invoke("runs", "pin", incomplete["run_id"], "--db", db)
    # Named as --baseline it is refused too, before anything is measured or stored.
    stored = invoke("runs", "list", "--db", db, "--format", "json").stdout
    with pytest.raises(InputError, match=f"run {incomplete['run_id']} is incomplete"):
        invoke("eval", "--set", sets["faq"], flaky, "--db", db, "--baseline", incomplete["run_id"])
    assert invoke("runs", "list", "--db", db, "--format", "json").stdout == stored
    with pytest.raises(InputError, match="only a complete run can be a baseline"):
        invoke("runs", "show", stored_first(stored), "--db", db, "--baseline", incomplete["run_id"])
    result = run_reval("runs", "export", incomplete["run_id"], "--db", db)
    assert result.returncode == 2 and "--trec-run" in result.stderr


@pytest.mark.postgres
def test_history_on_postgresql(postgres_url, sets, serve_table, invoke):
    label = f"pg-{uuid.uuid4().hex[:8]}"
    target = serve_table(GOOD, identifier="pg")
    for _ in range(2):
        result = invoke(
            "eval",
            "--set",
            sets["faq"],
            target,
            "--db",
            postgres_url,
            "--label",
            f"case={label}",
            "--format",
            "json",
        )
        assert result.exit_code == 0
    runs = json.loads(
        invoke(
            "runs", "list", "--db", postgres_url, "--label", f"case={label}", "--format", "json"
        ).stdout
    )["runs"]
    assert len(runs) == 2
    second = json.loads(result.stdout)["runs"][0]["regression"]
    assert second["verdict"] == "pass"
    assert second["baseline_run_id"] in {r["run_id"] for r in runs}
