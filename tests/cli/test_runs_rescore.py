"""``reval runs rescore`` through the installed ``reval``: stored rankings scored on newer
labels reproduce an unchanged set's figures exactly, turn a verdict around when the
documents a candidate found are judged relevant, never pass losses on judged documents,
and refuse what the stored rankings cannot answer."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from support.cli import BAD, FAQ, GOOD, REVAL, write_set

#: faq-1 and faq-2 lose their hit at top-1 to documents the labels never saw (d9, d7).
CANDIDATE = {**GOOD, "question faq-1": ["d9#0", "d1#0"], "question faq-2": ["d7#0", "d2#0"]}


def reval(*args: str | Path):
    env = {**os.environ, "CI": "1", "NO_COLOR": "1"}
    return subprocess.run([str(REVAL), *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=env)  # fmt: skip


def gate(set_path, target, db):
    done = reval("eval", "--set", set_path, "--retriever", target, "--db", db,
                 "--format", "json", "--fail-on-regression")  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)["runs"][0]


def rescore(db, set_path, *run_ids, out: Path):
    done = reval("runs", "rescore", *run_ids, "--set", set_path, "--db", db,
                 "--format", "json", "--output", out)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())["runs"]


def grown(tmp_path: Path) -> Path:
    """The same questions, with the documents the candidate found judged relevant."""
    labels = {"faq-1": ["d1", "d9"], "faq-2": ["d2", "d7"]}
    questions = [(qid, labels.get(qid, expected), form) for qid, expected, form in FAQ]
    directory = tmp_path / "grown"
    directory.mkdir()
    return write_set(directory, "faq", questions)


#: What a rescore may differ in from its source: its id, verdict and standing.
OWN = {"run_id", "regression", "acceptance"}


def test_an_unchanged_set_reproduces_every_stored_figure(sets, serve_table, db, tmp_path):
    source = gate(sets["faq"], serve_table(CANDIDATE, identifier="s"), db)
    (again,) = rescore(db, sets["faq"], source["run_id"], out=tmp_path / "r.json")
    assert again["run_id"] != source["run_id"]
    assert again["questions"] and again["metrics"]
    for key in set(source) | set(again):
        if key not in OWN:
            assert again.get(key) == source.get(key), key


def test_grown_labels_turn_the_verdict_around_and_keep_standing(sets, serve_table, db, tmp_path):
    baseline = gate(sets["faq"], serve_table(GOOD, identifier="s"), db)
    candidate = gate(sets["faq"], serve_table(CANDIDATE, identifier="s"), db)
    assert candidate["regression"]["verdict"] == "regression"
    new = grown(tmp_path)
    runs = rescore(db, new, baseline["run_id"], candidate["run_id"], out=tmp_path / "r.json")
    rebased, judged = runs  # in the order given; an accepted source's rescore first
    assert rebased["acceptance"]["how"] == "rescored"
    assert rebased["set_fingerprint"] != baseline["set_fingerprint"]
    assert judged["regression"]["verdict"] == "pass"
    assert judged["regression"]["baseline_run_id"] == rebased["run_id"]
    assert "acceptance" not in judged
    # The source runs stay as they were.
    shown = json.loads(reval("runs", "show", candidate["run_id"], "--db", db,
                             "--format", "json").stdout)["runs"][0]  # fmt: skip
    assert shown["regression"]["verdict"] == "regression"
    assert shown["set_fingerprint"] == candidate["set_fingerprint"]


def test_losses_on_judged_documents_never_pass(sets, serve_table, db, tmp_path):
    baseline = gate(sets["faq"], serve_table(GOOD, identifier="s"), db)
    bad = gate(sets["faq"], serve_table(BAD, identifier="s"), db)
    new = grown(tmp_path)  # faq-4 (answered, expects nothing) is still a loss
    runs = rescore(db, new, baseline["run_id"], bad["run_id"], out=tmp_path / "r.json")
    assert runs[1]["regression"]["verdict"] == "regression"
    assert "acceptance" not in runs[1]


def test_refuses_added_or_dropped_questions(sets, serve_table, db, tmp_path):
    source = gate(sets["faq"], serve_table(GOOD, identifier="s"), db)
    other = tmp_path / "other"
    other.mkdir()
    changed = write_set(other, "faq", [*FAQ[1:], ("faq-9", ["d9"], "MATCH")])
    done = reval("runs", "rescore", source["run_id"], "--set", changed, "--db", db)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "faq-9" in done.stderr and "faq-1" in done.stderr


def test_refuses_cutoffs_deeper_than_the_stored_rankings(sets, serve_table, db):
    import pytest

    from retrieval_eval.errors import InputError
    from retrieval_eval.evaluation.rescore import rescore as rescore_run
    from retrieval_eval.questions.loading import load_question_set
    from retrieval_eval.store.store import RunStore

    source = gate(sets["faq"], serve_table(GOOD, identifier="s"), db)
    with RunStore.open(db) as store:
        run = store.get(source["run_id"])
    question_set = load_question_set(sets["faq"])
    assert rescore_run(run, question_set, ks=(1,)).metrics  # shallower: answerable
    with pytest.raises(InputError, match=r"stored \d+ results per question; k=50"):
        rescore_run(run, question_set, ks=(1, 3, 50))


def test_judges_with_the_lineages_own_thresholds_and_never_accepts(sets, serve_table, db, tmp_path):
    """reval.toml's [gate] is the bar a rescore is judged with, as for reval eval; a pass
    there still makes no baseline (only an accepted source's rescore is one)."""
    baseline = gate(sets["faq"], serve_table(GOOD, identifier="s"), db)
    candidate = gate(sets["faq"], serve_table(CANDIDATE, identifier="s"), db)
    assert candidate["regression"]["verdict"] == "regression"
    config = tmp_path / "reval.toml"
    config.write_text("[gate]\nmax_top1_drop = 0.9\nmax_top3_drop = 0.9\n")
    out = tmp_path / "r.json"
    done = reval("runs", "rescore", baseline["run_id"], candidate["run_id"], "--set",
                 sets["faq"], "--db", db, "--config", config, "--format", "json",
                 "--output", out)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rebased, judged = json.loads(out.read_text())["runs"]
    assert judged["regression"]["verdict"] == "pass"
    assert judged["regression"]["baseline_run_id"] == rebased["run_id"]
    assert "acceptance" not in judged
