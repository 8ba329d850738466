"""Unjudged losses end to end, through the installed ``reval`` and a real SQLite store: a
planted before/after whose candidate loses hits to unjudged documents on some questions
and to judged-not-relevant ones on others gets a verdict naming exactly the unjudged
losses (every format, and the stored verdict); judging those documents through the
judging page's writer and rescoring both runs turns the verdict around, and the stored
history shows both label versions side by side; the ``unjudged_incomparable`` option never
passes a loss on judged documents, and no option, rescore or set edit passes a run whose
losses are all on judged documents."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from support.cli import REVAL

from retrieval_eval.web.judging import JudgingDesk

N = 10
#: q0, q1: the candidate ranks an unjudged document (u0, u1) where the target was;
#: q2: a document judged not relevant (n2, grade 0). Each loses its top-1 hit only.
UNJUDGED, JUDGED = ("q0", "q1"), ("q2",)


def text(i: int) -> str:
    return f"How does feature number {i} work?"


def write_files(tmp_path: Path) -> tuple[Path, Path]:
    questions = [
        {"id": f"q{i}", "question": text(i), "form": "MATCH",
         "judgments": {f"t{i}": 2, f"n{i}": 0}}
        for i in range(N)
    ]  # fmt: skip
    set_file = tmp_path / "features.yaml"
    body = {"reval_question_set": 1, "name": "features", "questions": questions}
    set_file.write_text("# hand-labelled; kept through judging\n" + yaml.safe_dump(body))
    corpus = tmp_path / "corpus.jsonl"
    docs = [f"{p}{i}" for i in range(N) for p in "tnu"]
    corpus.write_text("".join(json.dumps({"_id": d, "text": f"text of {d}"}) + "\n" for d in docs))
    return set_file, corpus


BASE = {text(i): [f"t{i}#0", f"n{i}#0"] for i in range(N)}
CAND = {
    **BASE,
    **{text(int(q[1])): [f"u{q[1]}#0", f"t{q[1]}#0"] for q in UNJUDGED},
    **{text(int(q[1])): [f"n{q[1]}#0", f"t{q[1]}#0"] for q in JUDGED},
}


def reval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": "1", "NO_COLOR": "1", "COLUMNS": "400"}
    return subprocess.run([str(REVAL), *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=env)  # fmt: skip


def gate(set_file: Path, target: str, db: str, *extra: str) -> tuple[int, dict]:
    done = reval("eval", "--set", set_file, "--retriever", target, "--db", db,
                 "--format", "json", "--fail-on-regression", *extra)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)["runs"][0]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_files(tmp_path)


def test_the_verdict_names_the_unjudged_losses_and_rescoring_turns_it(
    files, serve_table, db, tmp_path
):
    set_file, corpus = files
    _, base = gate(set_file, serve_table(BASE, identifier="s"), db)
    code, cand = gate(set_file, serve_table(CAND, identifier="s"), db)
    verdict = cand["regression"]
    assert (code, verdict["verdict"]) == (1, "regression")  # strict: unjudged losses count
    assert verdict["unjudged_losses"] == list(UNJUDGED)
    (at1,) = verdict["unjudged"]["by_k"]
    assert (at1["k"], at1["losses"], at1["unjudged"], at1["turnable"]) == (1, 3, 2, 2)
    command = verdict["unjudged"]["judge_command"]
    pools = f"--pool-from {cand['run_id']} --pool-from {base['run_id']}"
    where = shlex.quote(str(set_file))
    assert command == f"reval sets judge {where} --corpus FILE {pools} --depth 1"
    assert verdict["unjudged"]["line"].endswith(command)

    # the stored verdict keeps it: `runs show` in every format
    shown = reval("runs", "show", cand["run_id"], "--db", db)
    assert "unjudged: lost hits resting on unjudged documents: 2 of 3 at top-1" in shown.stdout
    assert command in shown.stdout
    for fmt, says in (("json", '"unjudged_losses": ['), ("markdown", "2 of 3 at top-1"),
                      ("junit", "2 of 3 at top-1")):  # fmt: skip
        out = reval("runs", "show", cand["run_id"], "--db", db, "--format", fmt)
        assert says in out.stdout, fmt
    page = tmp_path / "run.html"
    reval("runs", "show", cand["run_id"], "--db", db, "--format", "html", "--output", page)
    assert 'class="unjudged"' in page.read_text() and "2 of 3 at top-1" in page.read_text()
    github = reval("eval", "--set", set_file, "--retriever", serve_table(CAND, identifier="s"),
                   "--db", db, "--no-save", "--format", "github")  # fmt: skip
    assert "unjudged: lost hits resting on unjudged documents: 2 of 3 at top-1" in github.stdout

    # judge exactly those documents: the command's pool, then the judging page's writer
    args = shlex.split(command)[4:]  # after `reval sets judge SET`
    args[args.index("FILE")] = str(corpus)
    drafted = reval("sets", "draft", "--extend", set_file, *args, "--db", db)
    assert drafted.returncode == 0, drafted.stderr
    assert "2 unjudged documents" in drafted.stdout
    desk = JudgingDesk("ana")
    key = desk.add(set_file, corpus)
    for qid in UNJUDGED:  # the page sends every document ticked relevant: its target too
        i = qid[1]
        desk.save(key, qid, {"relevant": [f"t{i}", f"u{i}"], "complete": True, "judge": "ana"})
    judged = yaml.safe_load(set_file.read_text())["questions"]
    assert judged[0]["judgments"] == {"t0": 2, "n0": 0, "u0": 1}
    assert set_file.read_text().startswith("# hand-labelled")

    # the gate against the baseline on the older labels says so and offers the rescore
    code, stale = gate(set_file, serve_table(CAND, identifier="s"), db, "--no-save")
    assert (code, stale["regression"]["verdict"]) == (1, "incomparable")
    offer = f"rescore it on the current ones with `reval runs rescore {base['run_id']} --set FILE`"
    assert any(offer in line for line in stale["regression"]["reasons"])

    out = tmp_path / "rescored.json"
    done = reval("runs", "rescore", base["run_id"], cand["run_id"], "--set", set_file,
                 "--db", db, "--format", "json", "--output", out)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rebased, again = json.loads(out.read_text())["runs"]
    assert rebased["acceptance"]["how"] == "rescored"
    shown = reval("runs", "show", rebased["run_id"], "--db", db).stdout
    assert f"accepted as a baseline for these labels: rescored from {base['run_id']}" in shown
    assert "saved without a regression check" not in shown and "judged pass" not in shown
    turned = again["regression"]
    assert turned["verdict"] == "pass" and turned["baseline_run_id"] == rebased["run_id"]
    assert turned["unjudged_losses"] == []  # q2 is still a loss, on a judged document
    assert turned["unjudged"]["by_k"][0]["losses"] == 1
    assert turned["unjudged"]["line"] == (
        "unjudged: no lost hit rests on unjudged documents (1 at top-1, all on judged ones)"
    )
    # the source run keeps the verdict it was given
    source = json.loads(reval("runs", "show", cand["run_id"], "--db", db, "--format",
                              "json").stdout)["runs"][0]  # fmt: skip
    assert source["regression"]["unjudged_losses"] == list(UNJUDGED)

    # the stored history shows both label versions side by side
    history = reval("runs", "history", "--set", "features", "--retriever", "s", "--db", db,
                    "--format", "json")  # fmt: skip
    assert history.returncode == 0, history.stderr
    h = json.loads(history.stdout)
    old_labels, new_labels = (v["name"] for v in h["label_versions"])
    assert [(v["runs"], v["rescored"]) for v in h["label_versions"]] == [(2, 0), (2, 2)]
    rows = {r["source_run_id"]: r["by_label_version"] for r in h["side_by_side"]}
    assert rows == {
        base["run_id"]: {old_labels: base["run_id"], new_labels: rebased["run_id"]},
        cand["run_id"]: {old_labels: cand["run_id"], new_labels: again["run_id"]},
    }
    verdicts = {e["run_id"]: (e["label_version"], e["verdict"]["verdict"] if e["verdict"] else None)
                for e in h["entries"]}  # fmt: skip
    assert verdicts[cand["run_id"]] == (old_labels, "regression")
    assert verdicts[again["run_id"]] == (new_labels, "pass")
    assert {e["rescored_from"] for e in h["entries"]} == {None, base["run_id"], cand["run_id"]}
    shown = reval("runs", "history", "--set", "features", "--retriever", "s", "--db", db)
    side = shown.stdout.split("side by side", 1)[1]
    assert f"on {old_labels}" in side and f"on {new_labels}" in side
    assert "rescored baseline" in side  # the base's rescore stands as the new labels' baseline
    latest = json.loads(reval("runs", "history", "--set", "features", "--retriever", "s",
                              "--db", db, "--format", "json", "--label-version",
                              "latest").stdout)  # fmt: skip
    assert {e["run_id"] for e in latest["entries"]} == {rebased["run_id"], again["run_id"]}
    assert latest["label_version_shown"] == new_labels and latest["side_by_side"] == []


def test_incomparable_only_when_asked_and_never_for_judged_losses(files, serve_table, db, tmp_path):
    set_file, _ = files
    _, base = gate(set_file, serve_table(BASE, identifier="s"), db)
    only_unjudged = {**CAND, text(2): BASE[text(2)]}
    target = serve_table(only_unjudged, identifier="s")
    code, strict = gate(set_file, target, db)
    assert (code, strict["regression"]["verdict"]) == (1, "regression")
    code, asked = gate(set_file, target, db, "--unjudged-incomparable")
    assert (code, asked["regression"]["verdict"]) == (1, "incomparable")
    assert asked["regression"]["fails"] and asked["regression"]["unjudged"]["incomparable"]
    assert asked["regression"]["unjudged_losses"] == list(UNJUDGED)
    assert "acceptance" not in asked
    # reval.toml [gate] says the same; --unjudged-strict overrides it
    config = tmp_path / "reval.toml"
    config.write_text("[gate]\nunjudged_incomparable = true\n")
    code, by_config = gate(set_file, target, db, "--config", config)
    assert (code, by_config["regression"]["verdict"]) == (1, "incomparable")
    code, overridden = gate(set_file, target, db, "--config", config, "--unjudged-strict")
    assert overridden["regression"]["verdict"] == "regression"
    # a loss on a judged-not-relevant document keeps the regression, whatever is asked
    code, mixed = gate(set_file, serve_table(CAND, identifier="s"), db, "--config", config)
    assert (code, mixed["regression"]["verdict"]) == (1, "regression")
    # none became a baseline: the next run is still judged against the first
    _, later = gate(set_file, serve_table(BASE, identifier="s"), db)
    assert later["regression"]["baseline_run_id"] == base["run_id"]
    shown = reval("runs", "show", asked["run_id"], "--db", db)
    assert "INCOMPARABLE" in shown.stdout and "every lost hit rests on unjudged" in shown.stdout
    markdown = reval("runs", "show", asked["run_id"], "--db", db, "--format", "markdown").stdout
    assert "judge them (`reval sets judge" in markdown
    bad = tmp_path / "bad.toml"
    bad.write_text("[gate]\nunjudged_incomparable = 1\n")
    done = reval("eval", "--set", set_file, "--retriever", target, "--db", db, "--config", bad)
    assert done.returncode == 2
    assert "unjudged_incomparable" in done.stderr and done.stderr.strip().count("\n") == 0


def test_the_printed_command_judges_exactly_the_unjudged_documents(
    files, serve_table, db, tmp_path
):
    """The verdict's own command, run as printed (with a model instead of the page):
    the documents pooled and graded are exactly those the losses rest on."""
    from support.chat_server import ChatServer, completion, prompt_of

    set_file, corpus = files
    gate(set_file, serve_table(BASE, identifier="s"), db)  # the baseline
    _, cand = gate(set_file, serve_table(CAND, identifier="s"), db)
    command = shlex.split(cand["regression"]["unjudged"]["judge_command"])
    command[command.index("FILE")] = str(corpus)
    asked: list[tuple[str, str]] = []

    def model(request: dict) -> object:
        prompt = prompt_of(request)
        question = prompt.split("Question: ", 1)[1].split("\n", 1)[0]
        text_of = prompt.split("text of ", 1)[1].split()[0]
        asked.append((question, text_of))
        return completion(json.dumps({"grade": 1, "reason": "answers it"}))

    with ChatServer(model) as server:
        done = reval(*command[1:], "--db", db, "--llm-url", server.url, "--model", "m",
                     "--concurrency", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(asked) == sorted((text(int(q[1])), f"u{q[1]}") for q in UNJUDGED)
    assert "2 of 2 candidates graded" in done.stdout


#: q2, q3: a document judged not relevant (grade 0) now ranks above the target.
JUDGED_ONLY = {**BASE, **{text(i): [f"n{i}#0", f"t{i}#0"] for i in (2, 3)}}
OPTIONS = {
    "strict": (),
    "--unjudged-incomparable": ("--unjudged-incomparable",),
    "--unjudged-strict": ("--unjudged-strict",),
    "[gate] unjudged_incomparable": ("--config", "incomparable.toml"),
    "[gate] and --unjudged-incomparable": ("--config", "incomparable.toml",
                                           "--unjudged-incomparable"),
}  # fmt: skip


@pytest.mark.parametrize("option", list(OPTIONS))
def test_no_option_passes_losses_on_judged_documents(serve_table, db, tmp_path, option):
    set_file, _ = write_files(tmp_path)
    (tmp_path / "incomparable.toml").write_text("[gate]\nunjudged_incomparable = true\n")
    extra = tuple(str(tmp_path / a) if a.endswith(".toml") else a for a in OPTIONS[option])
    gate(set_file, serve_table(BASE, identifier="s"), db)
    code, cand = gate(set_file, serve_table(JUDGED_ONLY, identifier="s"), db, *extra)
    verdict = cand["regression"]
    assert (code, verdict["verdict"]) == (1, "regression"), option
    assert verdict["unjudged_losses"] == [] and "acceptance" not in cand


def test_no_rescore_or_set_edit_passes_losses_on_judged_documents(serve_table, db, tmp_path):
    set_file, _ = write_files(tmp_path)
    _, base = gate(set_file, serve_table(BASE, identifier="s"), db)
    _, cand = gate(set_file, serve_table(JUDGED_ONLY, identifier="s"), db)
    unchanged = tmp_path / "unchanged.yaml"
    unchanged.write_text(set_file.read_text())
    grown = yaml.safe_load(set_file.read_text())  # every other document judged relevant
    for i, question in enumerate(grown["questions"]):
        question["judgments"][f"u{i}"] = 1
    grown_file = tmp_path / "grown.yaml"
    grown_file.write_text(yaml.safe_dump(grown))
    for labels in (unchanged, grown_file):
        out = tmp_path / f"rescored-{labels.stem}.json"
        done = reval("runs", "rescore", base["run_id"], cand["run_id"], "--set", labels,
                     "--db", db, "--format", "json", "--output", out)  # fmt: skip
        assert done.returncode == 0, done.stderr
        _, again = json.loads(out.read_text())["runs"]
        assert again["regression"]["verdict"] == "regression", labels.name
        assert "acceptance" not in again
    # and a later run of the regressed retriever still fails against the rescored baseline
    code, later = gate(grown_file, serve_table(JUDGED_ONLY, identifier="s"), db,
                        "--unjudged-incomparable")  # fmt: skip
    assert (code, later["regression"]["verdict"]) == (1, "regression")
