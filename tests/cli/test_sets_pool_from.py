"""Judging the holes: ``sets draft --extend SET --pool-from RUN`` (and ``sets judge``)
offer exactly the documents in the top --depth of stored runs (saved by ``reval eval``
into a real SQLite store) that carry no judgment in the set, flipped questions first."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from support.cli import REVAL

from retrieval_eval.errors import InputError

SET = """\
# a hand-labelled set; this comment must survive
reval_question_set: 1
name: holes
questions:
  - id: steady
    question: What does the steady question ask?
    form: MATCH
    expected_document_ids: [a]
    judgments: {a: 1, wrong: 0}   # wrong was judged not relevant
  - id: flips
    question: Which question flips?
    form: MATCH
    expected_document_ids: [b]
"""
CORPUS = ["a", "b", "wrong", "new1", "new2", "new3", "deep", "other"]
#: Baseline: both hits. Candidate: "flips" loses its target to unjudged documents.
BASE = {
    "What does the steady question ask?": ["a", "wrong", "new1", "deep"],
    "Which question flips?": ["b", "new2"],
}
CAND = {
    "What does the steady question ask?": ["a", "wrong", "new3", "deep"],
    "Which question flips?": ["new2", "new1", "other", "b"],
}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    set_file = tmp_path / "holes.yaml"
    set_file.write_text(SET)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"_id": d, "title": d, "text": f"text of {d}"}) + "\n" for d in CORPUS)
    )
    return set_file, corpus


def _stored(invoke, set_file: Path, target: str, db: str) -> str:
    result = invoke("eval", "--set", set_file, "--retriever", target, "--db", db,
                    "--k", "1", "--format", "json")  # fmt: skip
    return json.loads(result.stdout)["runs"][0]["run_id"]


def _offered(set_file: Path) -> dict[str, list[str]]:
    data = yaml.safe_load(set_file.read_text())
    return {
        q["id"]: [c["document_id"] for c in q.get("labelling", {}).get("candidates", [])
                  if c["relevant"] is None]
        for q in data["questions"]
    }  # fmt: skip


def test_draft_pools_exactly_the_unjudged_top_k_of_stored_runs(
    files, serve_table, invoke, tmp_path
) -> None:
    set_file, corpus = files
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    base = _stored(invoke, set_file, serve_table(BASE, identifier="t"), db)
    cand = _stored(invoke, set_file, serve_table(CAND, identifier="t"), db)
    result = invoke("sets", "draft", "--extend", set_file, "--corpus", corpus,
                    "--pool-from", base, "--pool-from", cand[:8], "--depth", "3",
                    "--db", db)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "1 question(s) flipped" in result.stdout
    # top 3 of both runs minus judged (a, wrong: judged 0; b: expected); "deep" is rank 4
    assert _offered(set_file) == {"steady": ["new1", "new3"], "flips": ["new2", "new1", "other"]}
    data = yaml.safe_load(set_file.read_text())
    steady, flips = data["questions"]
    assert steady["judgments"] == {"a": 1, "wrong": 0}  # kept, never offered again
    found = {c["document_id"]: c["found_by"] for c in flips["labelling"]["candidates"]}
    assert found["new2"] == {f"run:{base}": 2, f"run:{cand}": 1}
    assert steady["labelling"]["state"] == "needs-review"
    text = set_file.read_text()
    assert text.startswith("# a hand-labelled set") and "# wrong was judged not relevant" in text
    assert [q["id"] for q in data["questions"]] == ["steady", "flips"]  # order kept
    # pooling again adds nothing: every offered document is a candidate already
    again = invoke("sets", "draft", "--extend", set_file, "--corpus", corpus, "--pool-from",
                   base, "--pool-from", cand, "--depth", "3", "--db", db)  # fmt: skip
    assert again.exit_code == 0 and "0 unjudged documents" in again.stdout


def test_flipped_questions_come_first(files, serve_table, invoke, tmp_path) -> None:
    from retrieval_eval.labelling.document import load_document
    from retrieval_eval.labelling.run_pool import pool_from_runs
    from retrieval_eval.store.store import RunStore

    set_file, _corpus = files
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    base = _stored(invoke, set_file, serve_table(BASE, identifier="t"), db)
    cand = _stored(invoke, set_file, serve_table(CAND, identifier="t"), db)
    with RunStore.open(db) as store:
        runs = [store.get(base), store.get(cand)]
    document, _ = load_document(set_file)
    assert list(pool_from_runs(document, runs, 3).pools) == ["flips", "steady"]
    pools = pool_from_runs(document, runs, 2)
    assert pools.flipped == ("flips",)
    assert pools.pools == {"flips": {"new2": {f"run:{base}": 2, f"run:{cand}": 1},
                                     "new1": {f"run:{cand}": 2}}}  # fmt: skip
    # one run: nothing flipped, set order
    assert pool_from_runs(document, runs[:1], 3).flipped == ()
    with pytest.raises(InputError, match="depth"):
        pool_from_runs(document, runs, 0)


def test_unknown_run_or_run_of_another_set_is_a_one_line_error(
    files, serve_table, invoke, tmp_path, sets
) -> None:
    set_file, corpus = files
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    other = _stored(invoke, sets["faq"], serve_table({}, identifier="t"), db)
    before = set_file.read_text()
    for run, says in (("nosuchrun", "nosuchrun"), (other, "not of 'holes'")):
        for command in ("draft", "judge"):
            args = ["--extend", set_file] if command == "draft" else [set_file]
            env = {**os.environ, "CI": "1", "NO_COLOR": "1"}
            result = subprocess.run(
                [str(REVAL), "sets", command, *map(str, args), "--corpus", str(corpus),
                 "--pool-from", run, "--db", db],
                capture_output=True, text=True, timeout=120, env=env,
            )  # fmt: skip
            assert result.returncode == 2, result.stderr
            (line,) = result.stderr.strip().splitlines()
            assert says in line
    assert set_file.read_text() == before


def test_judging_page_shows_flipped_questions_first(files) -> None:
    from retrieval_eval.web.judging import JudgingDesk

    set_file, corpus = files
    desk = JudgingDesk("ana")
    key = desk.add(set_file, corpus, first=("flips",))
    assert [q["id"] for q in desk.page_data(key)["questions"]] == ["flips", "steady"]
