"""``reval runs``: history over runs stored by real ``reval eval`` invocations."""

from __future__ import annotations

import json
import uuid

import ir_measures
import pytest
from ir_measures import Success

from retrieval_eval.errors import IncompleteRun, InputError, UnknownNameError

from .conftest import BAD, FAIL, FAQ, GOOD, run_reval


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


def test_compare_two_retrievers_on_the_same_set(history, invoke, db):
    a, b = history["first"]["run_id"], history["third"]["run_id"]
    out = json.loads(invoke("runs", "compare", a, b, "--db", db, "--format", "json").stdout)
    assert out["a"]["retriever"]["identifier"] == "s"
    assert out["b"]["retriever"]["identifier"] == "other"
    comparison = out["comparison"]
    top1 = next(
        d
        for d in comparison["deltas"]
        if d["group"] == "overall" and d["metric"] == "top1_hit_rate"
    )
    assert top1["delta"] == pytest.approx(-0.75)
    losses = sorted(
        {f["question_id"] for f in comparison["flips"] if f["direction"] == "hit->miss"}
    )
    assert losses == ["faq-1", "faq-2", "faq-4"]
    assert {t["k"] for t in comparison["tests"]} >= {1, 3}
    text = invoke("runs", "compare", a, b, "--db", db).output
    assert "retrievers differ: s 1 vs other 1" in text
    assert "flipped hit->miss" in text and "McNemar top-1" in text


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
    judged = json.loads(
        invoke(
            "eval", "--set", sets["faq"], bad, "--db", db, "--no-save", "--format", "json"
        ).output
    )
    assert judged["runs"][0]["regression"]["baseline_run_id"] == history["second"]["run_id"]
    assert judged["runs"][0]["regression"]["verdict"] == "pass"


def test_prune_keeps_the_newest_per_set_and_retriever(history, invoke, db):
    assert "pruned 1 runs" in invoke("runs", "prune", "--keep", "1", "--db", db).output
    left = json.loads(invoke("runs", "list", "--db", db, "--format", "json").stdout)["runs"]
    assert sorted(r["labels"]["step"] for r in left) == ["second", "third"]


def test_export_writes_trec_files_that_ir_measures_agrees_with(history, invoke, db, tmp_path):
    run_file, qrels_file = tmp_path / "run.trec", tmp_path / "qrels.trec"
    result = invoke(
        "runs",
        "export",
        history["first"]["run_id"],
        "--db",
        db,
        "--trec-run",
        run_file,
        "--qrels",
        qrels_file,
    )
    assert "relevance judgements" in result.output
    qrels = list(ir_measures.read_trec_qrels(str(qrels_file)))
    scores = ir_measures.calc_aggregate(
        [Success @ 1], qrels, ir_measures.read_trec_run(str(run_file))
    )
    # faq-4 has no qrels; of faq-1..3 (all answered by GOOD), two hit at top-1
    assert scores[Success @ 1] == pytest.approx(2 / 3)
    assert history["first"]["top1_hit_rate"] == pytest.approx(3 / 4)


def test_unknown_or_unpinnable_runs_are_input_errors(history, invoke, db, sets, serve_table):
    with pytest.raises(UnknownNameError, match="no-such-run"):
        invoke("runs", "show", "no-such-run", "--db", db)
    flaky = serve_table({**GOOD, "question faq-1": FAIL}, identifier="s")
    with pytest.raises(IncompleteRun):  # exit 3, after the run was stored
        invoke("eval", "--set", sets["faq"], flaky, "--db", db, "--label", "step=flaky")
    (incomplete,) = json.loads(
        invoke("runs", "list", "--db", db, "--label", "step=flaky", "--format", "json").stdout
    )["runs"]
    with pytest.raises(InputError, match="only complete runs can be pinned"):
        invoke("runs", "pin", incomplete["run_id"], "--db", db)
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
