"""The regression gate through the real CLI: accepted baselines (a retried job fails again),
``runs accept``, pruning that keeps baselines, runs that scored nothing, and class checks
that need significant flips."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .conftest import BAD, FAIL, GOOD, run_reval


def _eval(invoke, sets, target, db, *extra):
    result = invoke(
        "eval", "--set", sets["faq"], "--retriever", target, "--db", db,
        "--format", "json", "--fail-on-regression", *extra,
    )  # fmt: skip
    return result, json.loads(result.stdout)["runs"][0]


def _eval_process(sets, target, db, *extra):
    """As CI runs it (the installed executable): for exits the CLI maps from errors."""
    done = run_reval(
        "eval", "--set", sets["faq"], "--retriever", target, "--db", db,
        "--format", "json", "--fail-on-regression", *extra,
    )  # fmt: skip
    return done, json.loads(done.stdout)["runs"][0]


def test_a_regressing_retriever_gated_twice_fails_twice_until_accepted(
    sets, serve_table, db, invoke
):
    good = serve_table(GOOD, identifier="s")
    bad = serve_table(BAD, identifier="s")  # another replica address, same Describe identifier
    result, first = _eval(invoke, sets, good, db)
    assert result.exit_code == 0 and first["regression"]["verdict"] == "no-baseline"
    verdicts = []
    for _ in range(2):  # the CI job, then its "retry" button
        result, run = _eval(invoke, sets, bad, db)
        assert result.exit_code == 1, result.output
        assert run["regression"]["verdict"] == "regression"
        assert run["regression"]["baseline_run_id"] == first["run_id"]
        verdicts.append(run)
    accepted = invoke(
        "runs", "accept", verdicts[-1]["run_id"], "--reason", "smaller chunks, on purpose",
        "--by", "ana", "--db", db,
    )  # fmt: skip
    assert accepted.exit_code == 0
    assert f"accepted {verdicts[-1]['run_id']}" in accepted.stdout and "ana" in accepted.stdout
    result, after = _eval(invoke, sets, bad, db)
    assert result.exit_code == 0, result.output
    assert after["regression"]["verdict"] == "pass"
    assert after["regression"]["baseline_run_id"] == verdicts[-1]["run_id"]
    # The acceptance is shown wherever the run is.
    shown = invoke("runs", "show", verdicts[-1]["run_id"], "--db", db).stdout
    assert "accepted as a baseline by ana on " in shown and "smaller chunks, on purpose" in shown
    as_json = json.loads(
        invoke("runs", "show", verdicts[-1]["run_id"], "--db", db, "--format", "json").stdout
    )
    assert as_json["runs"][0]["accepted"]["by"] == "ana"
    assert as_json["runs"][0]["accepted"]["reason"] == "smaller chunks, on purpose"
    history = invoke("runs", "history", "--set", "faq", "--retriever", "s", "--db", db).stdout
    assert "accepted by" in history and "variant changed" not in history  # replicas: one variant
    assert " ".join(history.split()).count("accepted by ana: smaller chunks, on purpose") == 1
    history_json = json.loads(
        invoke(
            "runs", "history", "--set", "faq", "--retriever", "s", "--db", db, "--format", "json"
        ).stdout
    )
    accepted_entries = [e for e in history_json["entries"] if e["accepted"]]
    assert [e["run_id"] for e in accepted_entries] == [verdicts[-1]["run_id"]]


def test_accept_needs_a_reason_and_a_complete_run(sets, serve_table, db, invoke):
    failing = serve_table({**GOOD, "question faq-2": FAIL}, identifier="s")
    result, run = _eval_process(sets, failing, db)
    assert result.returncode == 3
    refused = run_reval("runs", "accept", run["run_id"], "--reason", "x", "--db", db)
    assert refused.returncode == 2
    assert "only a complete run can be a baseline" in refused.stderr
    missing = run_reval("runs", "accept", run["run_id"], "--db", db)
    assert missing.returncode == 2 and "--reason" in missing.stderr


def test_a_run_that_scored_nothing_is_incomplete_whatever_the_budget(sets, serve_table, db, invoke):
    serve_table(GOOD, identifier="s")
    everything_fails = {question: FAIL for question in GOOD}
    target = serve_table(everything_fails, identifier="s")
    result, run = _eval_process(sets, target, db, "--max-errors", "100%", "--max-top1-drop", "0")
    assert result.returncode == 3, result.stderr
    assert run["regression"]["verdict"] == "incomplete"
    assert "no question was scored" in run["regression"]["reasons"][0]
    assert "no question scored" in result.stderr
    count, _ = _eval_process(sets, target, db, "--max-errors", "4")
    assert count.returncode == 3


def test_prune_keeps_each_lineages_baseline(sets, serve_table, db, invoke):
    good = serve_table(GOOD, identifier="s")
    failing = serve_table({question: FAIL for question in GOOD}, identifier="s")
    _, baseline = _eval(invoke, sets, good, db)
    for _ in range(3):  # a nightly job whose retriever is down
        assert _eval_process(sets, failing, db)[0].returncode == 3
    preview = invoke("runs", "prune", "--keep", "1", "--dry-run", "--db", db)
    assert baseline["run_id"] not in preview.stdout
    assert f"keeping {baseline['run_id']}: newest accepted run (the baseline)" in preview.stderr
    assert "would prune 2 runs" in preview.stderr
    pruned = invoke("runs", "prune", "--keep", "1", "--db", db)
    assert "pruned 2 runs" in pruned.stdout
    result, bad = _eval(invoke, sets, serve_table(BAD, identifier="s"), db)
    assert result.exit_code == 1  # still judged against the kept baseline
    assert bad["regression"]["baseline_run_id"] == baseline["run_id"]


def _class_set(path: Path, classes: list[str]) -> Path:
    document = {
        "name": "classes",
        "questions": [
            {
                "id": f"q{i}",
                "question": f"question {i}",
                "form": "MATCH",
                "expected_document_ids": [f"d{i}"],
                "hard_class": cls,
            }
            for i, cls in enumerate(classes)
        ],
    }
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def _answers(hits: list[bool]) -> dict[str, list[str]]:
    return {f"question {i}": [f"d{i}#0" if hit else "x#0"] for i, hit in enumerate(hits)}


def _gate(invoke, path, target, db):
    result = invoke(
        "eval", "--set", path, "--retriever", target, "--db", db, "--format", "json",
        "--fail-on-regression",
    )  # fmt: skip
    return result, json.loads(result.stdout)["runs"][0]["regression"]


def test_a_small_class_losing_one_question_warns_and_does_not_fail(
    tmp_path, serve_table, db, invoke
):
    path = _class_set(tmp_path / "classes.yaml", ["hard"] * 4 + ["normal"] * 36)
    everything = [True] * 40
    assert (
        _gate(invoke, path, serve_table(_answers(everything), identifier="c"), db)[0].exit_code == 0
    )
    one_lost = [False] + [True] * 39
    result, verdict = _gate(invoke, path, serve_table(_answers(one_lost), identifier="c"), db)
    assert result.exit_code == 0, result.output
    assert verdict["verdict"] == "pass"
    (warning,) = [w for w in verdict["warnings"] if w.startswith("top-1 in hard_class:hard")]
    assert "not significant" in warning and "1 lost, 0 gained" in warning
    assert "grow the hard_class:hard group" in warning
    (delta,) = [d for d in verdict["deltas"]
                if d["group"] == "hard_class:hard" and d["metric"] == "top1_hit_rate"]  # fmt: skip
    assert delta["delta"] == -0.25 and not delta["regressed"] and delta["p_value"] == 1.0


def test_a_large_class_losing_twelve_fails(tmp_path, serve_table, db, invoke):
    path = _class_set(tmp_path / "classes.yaml", ["hard"] * 40 + ["normal"] * 40)
    before = [True] * 12 + [True] * 28 + [False] * 12 + [True] * 28
    now = [False] * 12 + [True] * 28 + [True] * 12 + [True] * 28  # overall unchanged
    assert _gate(invoke, path, serve_table(_answers(before), identifier="c"), db)[0].exit_code == 0
    result, verdict = _gate(invoke, path, serve_table(_answers(now), identifier="c"), db)
    assert result.exit_code == 1, result.output
    assert verdict["verdict"] == "regression"
    overall = [d for d in verdict["deltas"] if d["group"] == "overall"]
    assert all(d["delta"] == 0 and not d["regressed"] for d in overall)
    (delta,) = [d for d in verdict["deltas"]
                if d["group"] == "hard_class:hard" and d["metric"] == "top1_hit_rate"]  # fmt: skip
    assert delta["regressed"] and delta["p_value"] < 0.05
    assert any("in hard_class:hard fell 0.300" in r for r in verdict["reasons"])
