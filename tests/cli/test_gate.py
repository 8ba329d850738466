"""The regression gate through the real CLI: accepted baselines (a retried job fails again),
``runs accept``, pruning that keeps baselines, runs that scored nothing, and class checks
that need significant flips."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from support.cli import BAD, FAIL, GOOD, run_reval


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
    accepted_entries = [e for e in history_json["entries"] if e.get("accepted")]
    assert [e["run_id"] for e in accepted_entries] == [verdicts[-1]["run_id"]]
    page = invoke("runs", "show", verdicts[-1]["run_id"], "--db", db, "--format", "html").stdout
    assert "accepted as a baseline by ana on " in page and "smaller chunks, on purpose" in page
    history_page = invoke(
        "runs", "history", "--set", "faq", "--retriever", "s", "--db", db, "--format", "html"
    ).stdout
    assert "accepted by ana: smaller chunks, on purpose" in history_page


def test_a_reval_toml_name_is_its_own_lineage_whatever_it_points_at(
    sets, serve_table, db, invoke, tmp_path
):
    """Two names for servers that describe themselves alike never judge each other; one
    name moved to another address goes on judging against its own history."""
    good = serve_table(GOOD, identifier="s")
    bad = serve_table(BAD, identifier="s")
    config = tmp_path / "reval.toml"

    def point(prod: str, canary: str) -> None:
        config.write_text(
            f'[retrievers.prod]\naddress = "{prod}"\n[retrievers.canary]\naddress = "{canary}"\n',
            encoding="utf-8",
        )

    point(good, bad)
    result, prod = _eval(invoke, sets, "prod", db, "--config", config)
    assert result.exit_code == 0 and prod["regression"]["verdict"] == "no-baseline"
    result, canary = _eval(invoke, sets, "canary", db, "--config", config)
    assert result.exit_code == 0, result.output
    assert canary["regression"]["verdict"] == "no-baseline"  # not prod's baseline
    point(bad, good)  # prod now reaches the bad server
    result, moved = _eval(invoke, sets, "prod", db, "--config", config)
    assert result.exit_code == 1, result.output
    assert moved["regression"]["verdict"] == "regression"
    assert moved["regression"]["baseline_run_id"] == prod["run_id"]


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


EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "example_data"


def _index(invoke, out: str, words: int, overlap: int) -> None:
    result = invoke(
        "bm25", "index", EXAMPLE / "corpus.jsonl", "--out", out,
        "--chunk-words", str(words), "--chunk-overlap", str(overlap),
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_plugin_targets_are_their_own_lineages_and_a_rebuild_is_a_before_after(
    tmp_path, monkeypatch, db, invoke
):
    monkeypatch.chdir(tmp_path)
    _index(invoke, "a", 60, 10)
    _index(invoke, "b", 150, 30)
    questions = EXAMPLE / "questions.yaml"

    def gate(target: str, *formats: str) -> dict:
        result = invoke("eval", "--set", questions, "--retriever", target, "--db", db,
                        "--format", "json")  # fmt: skip
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["runs"][0]

    runs = [gate(t) for t in ("bm25:a", "bm25:b", "bm25:./a", f"bm25:{tmp_path / 'b'}")]
    assert [r["regression"]["verdict"] for r in runs[:2]] == ["no-baseline", "no-baseline"]
    # Alternating targets never judge one index against the other; ./a and an absolute
    # path to b are the same targets as a and b.
    assert runs[2]["regression"]["baseline_run_id"] == runs[0]["run_id"]
    assert runs[3]["regression"]["baseline_run_id"] == runs[1]["run_id"]
    assert all(r["regression"]["variant_change"] is None for r in runs)

    _index(invoke, "a", 150, 30)  # the chunking retune: rebuilt at the same target
    rebuilt = gate("bm25:a")
    change = "chunking words=60,overlap=10 -> words=150,overlap=30"
    assert rebuilt["regression"]["baseline_run_id"] == runs[2]["run_id"]
    assert rebuilt["regression"]["variant_change"] == change
    run_id = rebuilt["run_id"]
    text = invoke("runs", "show", run_id, "--db", db).stdout
    assert f"before/after: {change}" in " ".join(text.split())
    markdown = invoke("runs", "show", run_id, "--db", db, "--format", "markdown").stdout
    assert f"before/after: {change}" in markdown
    junit = invoke("runs", "show", run_id, "--db", db, "--format", "junit").stdout
    assert f'name="variant_change" value="{change}"' in junit.replace("&gt;", ">")
    assert f"before/after: {change}" in junit.replace("&gt;", ">")
    html_path = tmp_path / "run.html"
    invoke("runs", "show", run_id, "--db", db, "--format", "html", "--output", html_path)
    html = html_path.read_text(encoding="utf-8")
    assert f"before/after: {change}" in html.replace("&gt;", ">")
    # The history of one target holds both variants and marks the change.
    history = invoke("runs", "history", "--set", "larkspur-example", "--retriever", "bm25:a",
                     "--db", db).stdout  # fmt: skip
    assert "variant changed" in history and runs[1]["run_id"] not in history
