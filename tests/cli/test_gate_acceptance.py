"""What moves a baseline, through the installed ``reval``: a pass under loosened options or
against another lineage's run is stored with its verdict but never accepted; reval.toml's
``[gate]`` is the lineage's own bar; errors never improve a verdict; ``--require-baseline``
fails a missing baseline; a committed baseline file judges with no database."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.cli import BAD, FAIL, GOOD, REVAL, write_set


def reval(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None):
    """The installed executable, as CI runs it; ``env`` entries replace the environment's."""
    full = {**os.environ, "CI": "1", "NO_COLOR": "1", **(env or {})}
    return subprocess.run([str(REVAL), *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=full, cwd=cwd)  # fmt: skip


def gate(sets, target, db, *extra, cwd=None, env=None):
    done = reval("eval", "--set", sets["faq"], "--retriever", target, "--db", db,
                 "--format", "json", "--fail-on-regression", *extra, cwd=cwd, env=env)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return done, json.loads(done.stdout)["runs"][0]


def shown(run_id, db):
    done = reval("runs", "show", run_id, "--db", db, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["runs"][0]


def test_a_pass_under_loose_thresholds_is_stored_but_moves_no_baseline(sets, serve_table, db):
    good, bad = serve_table(GOOD, identifier="s"), serve_table(BAD, identifier="s")
    _, first = gate(sets, good, db)
    assert first["regression"]["verdict"] == "no-baseline"
    done, loose = gate(sets, bad, db, "--max-top1-drop", "1", "--max-top3-drop", "1")
    assert done.returncode == 0 and loose["regression"]["verdict"] == "pass"
    # The default gate still judges the regressed retriever against the first run.
    for _ in range(2):
        done, again = gate(sets, bad, db)
        assert done.returncode == 1 and again["regression"]["verdict"] == "regression"
        assert again["regression"]["baseline_run_id"] == first["run_id"]
    assert first["acceptance"]["how"] == "first-run"
    assert "acceptance" not in loose
    reasons = loose["regression"]["not_accepted"]
    assert any("--max-top1-drop 1 is looser than the lineage's 0.1 (the defaults)" in r
               for r in reasons)  # fmt: skip
    command = f"reval runs accept {loose['run_id']} --reason TEXT"
    assert loose["regression"]["accept_command"] == command
    text = reval("runs", "show", loose["run_id"], "--db", db).stdout
    assert "not accepted as a baseline: --max-top1-drop 1 is looser" in text and command in text
    # Accepting it on purpose is what moves the baseline, and says so.
    assert reval("runs", "accept", loose["run_id"], "--reason", "new ranking", "--by", "ana",
                 "--db", db).returncode == 0  # fmt: skip
    assert shown(loose["run_id"], db)["acceptance"]["how"] == "person"
    done, after = gate(sets, bad, db)
    assert done.returncode == 0 and after["regression"]["baseline_run_id"] == loose["run_id"]
    assert after["acceptance"] == {
        "how": "judged-pass",
        "baseline": loose["run_id"],
        "thresholds": {"max_top1_drop": 0.1, "max_top3_drop": 0.1, "max_errors": "0",
                       "max_p95_latency_increase_ms": None, "max_drift": None,
                       "unjudged_incomparable": False},
    }  # fmt: skip


def test_a_pass_against_another_lineages_run_is_not_accepted(sets, serve_table, db):
    other = serve_table(BAD, identifier="other")
    good, bad = serve_table(GOOD, identifier="s"), serve_table(BAD, identifier="s")
    _, borrowed = gate(sets, other, db)  # a weak run of another retriever
    _, first = gate(sets, good, db)
    done, run = gate(sets, bad, db, "--baseline", borrowed["run_id"])
    assert done.returncode == 0 and run["regression"]["verdict"] == "pass"
    done, again = gate(sets, bad, db)
    assert done.returncode == 1 and again["regression"]["baseline_run_id"] == first["run_id"]
    assert any(f"baseline {borrowed['run_id']} is of another lineage" in r
               for r in run["regression"]["not_accepted"])  # fmt: skip


def test_the_lineages_own_gate_table_is_the_bar_an_option_may_not_loosen(
    sets, serve_table, db, tmp_path
):
    (tmp_path / "reval.toml").write_text(
        '[gate]\nmax_top1_drop = 0.8\nmax_top3_drop = 0.8\n\n[gate.retrievers."grpc:s"]\n'
        "max_top1_drop = 0.5\n",
        encoding="utf-8",
    )
    good, bad = serve_table(GOOD, identifier="s"), serve_table(BAD, identifier="s")
    gate(sets, good, db, cwd=tmp_path)
    # top-1 falls 0.75 -> 0 and top-3 1 -> 0.5: beyond the entry's 0.5, within the global 0.8.
    done, run = gate(sets, bad, db, cwd=tmp_path)
    assert done.returncode == 1 and run["regression"]["verdict"] == "regression"
    done, loose = gate(sets, bad, db, "--max-top1-drop", "0.8", cwd=tmp_path)
    assert done.returncode == 0 and loose["regression"]["verdict"] == "pass"
    done, again = gate(sets, bad, db, cwd=tmp_path)  # the loose pass moved nothing
    assert done.returncode == 1 and again["regression"]["verdict"] == "regression"
    assert any('looser than the lineage\'s 0.5 (reval.toml [gate.retrievers."grpc:s"])' in r
               for r in loose["regression"]["not_accepted"])  # fmt: skip
    assert "acceptance" not in loose
    # The lineage's own value given explicitly is not looser: the pass is accepted.
    done, same = gate(sets, good, db, "--max-top1-drop", "0.5", cwd=tmp_path)
    assert done.returncode == 0 and same["acceptance"]["how"] == "judged-pass"
    assert same["acceptance"]["thresholds"]["max_top3_drop"] == 0.8
    (tmp_path / "reval.toml").write_text("[gate]\nmax_top1_drop = 2\n", encoding="utf-8")
    done = reval("eval", "--set", sets["faq"], "--retriever", bad, "--db", db, cwd=tmp_path)
    assert done.returncode == 2
    assert "[gate]: key 'max_top1_drop' must be a rate from 0 to 1, got 2" in done.stderr


#: 20 questions: the baseline hits q1-q17 at top-1 and misses q18-q20.
TWENTY = [(f"q{i}", [f"d{i}"], "MATCH") for i in range(1, 21)]
BASE = {f"question q{i}": [f"d{i}#0"] for i in range(1, 18)}


def _twenty(tmp_path):
    return {"faq": write_set(tmp_path, "faq", TWENTY)}


def test_errors_on_questions_the_baseline_missed_never_hide_lost_hits(serve_table, db, tmp_path):
    sets = _twenty(tmp_path)
    baseline = serve_table(BASE, identifier="s")
    # Loses q1-q3 and fails on q18-q20, which the baseline missed: over its own answered
    # questions it would look 0.85 -> 0.82; on the questions scored in both, 1.0 -> 0.82.
    lossy = {**BASE, **{f"question q{i}": ["x#0"] for i in (1, 2, 3)},
             **{f"question q{i}": FAIL for i in (18, 19, 20)}}  # fmt: skip
    gate(sets, baseline, db)
    done, run = gate(sets, serve_table(lossy, identifier="s"), db, "--max-errors", "3")
    assert done.returncode == 1, done.stdout
    verdict = run["regression"]
    assert verdict["verdict"] == "regression" and verdict["rule"] == "scored-in-both"
    assert any("decided on the 17 questions scored in both runs (3 errored questions left out)"
               in r for r in verdict["reasons"])  # fmt: skip
    overall = {d["metric"]: d for d in verdict["deltas"] if d["group"] == "overall"}
    assert (overall["top1_hit_rate"]["baseline"], overall["top1_hit_rate"]["current"]) == (
        1.0, 14 / 17)  # fmt: skip


def test_errors_on_questions_the_baseline_hit_count_as_misses(serve_table, db, tmp_path):
    sets = _twenty(tmp_path)
    gate(sets, serve_table(BASE, identifier="s"), db)
    failing = {**BASE, **{f"question q{i}": FAIL for i in (1, 2, 3)}}
    done, run = gate(sets, serve_table(failing, identifier="s"), db, "--max-errors", "3")
    assert done.returncode == 1
    verdict = run["regression"]
    assert verdict["verdict"] == "regression" and verdict["rule"] == "errors-as-misses"
    overall = {d["metric"]: d for d in verdict["deltas"] if d["group"] == "overall"}
    assert (overall["top1_hit_rate"]["baseline"], overall["top1_hit_rate"]["current"]) == (
        0.85, 0.70)  # fmt: skip


def test_require_baseline_fails_no_baseline_and_accepts_no_first_run(sets, serve_table, db):
    good = serve_table(GOOD, identifier="s")
    done, run = gate(sets, good, db, "--require-baseline")
    assert done.returncode == 1
    assert run["regression"]["verdict"] == "no-baseline" and run["regression"]["fails"]
    assert "acceptance" not in run and run["regression"]["baseline_required"]
    assert "no baseline and --require-baseline: the gate fails" in reval(
        "runs", "show", run["run_id"], "--db", db).stdout  # fmt: skip
    without = reval("eval", "--set", sets["faq"], "--retriever", good, "--db", db,
                    "--require-baseline")  # fmt: skip
    assert without.returncode == 0 and "--require-baseline: the gate fails" in without.stdout
    done, _ = gate(sets, good, db, "--require-baseline")  # still none accepted
    assert done.returncode == 1


@pytest.mark.parametrize("url", [None, ""], ids=["no-store", "empty-url"])
def test_a_committed_baseline_file_judges_with_no_database(sets, serve_table, db, tmp_path, url):
    good, bad = serve_table(GOOD, identifier="s"), serve_table(BAD, identifier="s")
    _, first = gate(sets, good, db)
    out = tmp_path / "faq.baseline.json"
    done = reval("runs", "export-baseline", first["run_id"], "--out", out, "--db", db)
    assert done.returncode == 0, done.stderr
    exported = out.read_bytes()
    assert reval("runs", "export-baseline", first["run_id"], "--out", out, "--db",
                 db).returncode == 0  # fmt: skip
    assert out.read_bytes() == exported  # deterministic: same run, same bytes
    document = json.loads(exported)
    assert (document["format"], document["format_version"]) == ("reval-baseline", 2)
    assert document["lineage"] == "grpc:s" and document["accepted"]["how"] == "first-run"
    assert document["figures"]["top1_hit_rate"] == 0.75
    home = tmp_path / "home"  # no store anywhere: a fork's pull request
    env = {"REVAL_HOME": str(home)} | ({} if url is None else {"REVAL_DATABASE_URL": url})
    if url is None:
        env["REVAL_DATABASE_URL"] = ""
    args = ("eval", "--set", sets["faq"], "--format", "json", "--fail-on-regression",
            "--no-save", "--baseline-file", out)  # fmt: skip
    done = reval(*args, "--retriever", bad, env=env)
    run = json.loads(done.stdout)["runs"][0]
    assert done.returncode == 1 and run["regression"]["verdict"] == "regression"
    assert run["regression"]["baseline_run_id"] == first["run_id"]
    assert run["regression"]["baseline_file"] == str(out)
    done = reval(*args, "--retriever", good, env=env)
    assert done.returncode == 0 and json.loads(done.stdout)["runs"][0]["regression"][
        "verdict"] == "pass"  # fmt: skip
    assert not home.exists()  # no database was created


def test_a_baseline_file_of_another_set_or_lineage_is_incomparable(sets, serve_table, db, tmp_path):
    good = serve_table(GOOD, identifier="s")
    _, first = gate(sets, good, db)
    out = tmp_path / "faq.baseline.json"
    reval("runs", "export-baseline", first["run_id"], "--out", out, "--db", db)
    other = serve_table(GOOD, identifier="other")
    args = ("eval", "--format", "json", "--fail-on-regression", "--no-save", "--baseline-file",
            out)  # fmt: skip
    done = reval(*args, "--set", sets["faq"], "--retriever", other)
    run = json.loads(done.stdout)["runs"][0]["regression"]
    assert done.returncode == 1 and run["verdict"] == "incomparable"
    assert "not of faq × grpc:other" in run["reasons"][0]
    changed = write_set(tmp_path, "faq", [("faq-1", ["d1"], "MATCH"), ("faq-2", ["d9"], "GAP")])
    done = reval(*args, "--set", changed, "--retriever", good)
    run = json.loads(done.stdout)["runs"][0]["regression"]
    assert done.returncode == 1 and run["verdict"] == "incomparable"
    assert "labels" in run["incomparable_parts"]


def test_a_malformed_or_unaccepted_baseline_file_is_bad_input(sets, serve_table, db, tmp_path):
    good, bad = serve_table(GOOD, identifier="s"), serve_table(BAD, identifier="s")
    gate(sets, good, db)
    _, regressed = gate(sets, bad, db)
    done = reval("runs", "export-baseline", regressed["run_id"], "--out", tmp_path / "b.json",
                 "--db", db)  # fmt: skip
    assert done.returncode == 2 and not (tmp_path / "b.json").exists()
    assert done.stderr.count("\n") == 1
    assert f"reval runs accept {regressed['run_id']} --reason TEXT" in done.stderr
    for text in ("{", '{"format": "reval-baseline", "format_version": 1}', "[]"):
        broken = tmp_path / "broken.json"
        broken.write_text(text, encoding="utf-8")
        done = reval("eval", "--set", sets["faq"], "--retriever", good, "--no-save",
                     "--baseline-file", broken)  # fmt: skip
        assert done.returncode == 2 and str(broken) in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1
