"""Figures by label source (``reval eval --by-source``, ``reval runs show --by-source``):
real runs of a set whose questions a person, a model, both or nobody labelled; every
group's rates checked against the run's own per-question hits."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from support.cli import run_reval

from retrieval_eval.labelling.label_sources import label_sources

MODEL = "llm:tiny@sha256:abc"

SET = f"""\
reval_question_set: 1
name: sourced
pool: {{depth: 2, retrievers: [scripted]}}
questions:
  - id: by-ana
    question: How do I restore a single file?
    expected_document_ids: [restore-files]
    labelling:
      state: judged
      judged_by: ana
      candidates:
        - {{document_id: restore-files, relevant: true, source: "human:ana"}}
        - {{document_id: overview, relevant: false, source: "human:ana"}}
  - id: by-model
    question: Which release added support for Backblaze B2?
    expected_document_ids: [release-3-2]
    labelling:
      state: judged
      judged_by: "{MODEL}"
      candidates:
        - {{document_id: release-3-2, relevant: true, source: "{MODEL}", reason: says B2}}
  - id: nothing
    question: Can Larkspur back up to a tape drive?
    expected_document_ids: []
    labelling:
      state: judged
      nothing_answers: true
      judged_by: ana
      candidates:
        - {{document_id: repo-local, relevant: false, source: "human:ana"}}
  - id: both
    question: How do I install the agent on Fedora?
    expected_document_ids: [install-linux, system-requirements]
    labelling:
      state: judged
      judged_by: ana
      candidates:
        - {{document_id: install-linux, relevant: true, source: "human:ana"}}
        - {{document_id: system-requirements, relevant: true, source: "{MODEL}"}}
  - id: older-page
    question: How is my data encrypted?
    expected_document_ids: [encryption]
    labelling:
      state: judged
      judged_by: ben
      candidates:
        - {{document_id: encryption, relevant: true}}
  - id: by-hand
    question: What changed in 3.1?
    expected_document_ids: [release-3-1]
"""

ANSWERS = {
    "How do I restore a single file?": ["restore-files#0"],
    "Which release added support for Backblaze B2?": ["overview#0", "release-3-2#1"],
    "Can Larkspur back up to a tape drive?": [],
    "How do I install the agent on Fedora?": ["install-linux#0"],
    "How is my data encrypted?": ["encryption#0"],
    "What changed in 3.1?": ["faq#0"],
}
SOURCES = {"by-ana": "human", "by-model": "llm", "nothing": "human", "both": "mixed",
           "older-page": "human", "by-hand": "unknown"}  # fmt: skip


@pytest.fixture
def sourced(tmp_path: Path) -> Path:
    path = tmp_path / "sourced.yaml"
    path.write_text(SET)
    checked = run_reval("sets", "validate", path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return path


def test_each_question_takes_the_source_of_its_expected_documents(sourced: Path) -> None:
    assert label_sources(sourced) == SOURCES


def test_eval_and_show_break_the_figures_down_by_label_source(
    sourced: Path, tmp_path: Path, serve_scripted: Callable[[Mapping[str, list[str]]], str]
) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    target = serve_scripted(ANSWERS)
    done = run_reval("eval", "--set", sourced, target, "--db", db, "--by-source", "--format",
                     "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    groups = run["by_label_source"]
    assert list(groups) == ["human", "llm", "mixed", "unknown"]
    for name, group in groups.items():  # against the run's own hits, grouped here
        mine = [q for q in run["questions"] if SOURCES[q["id"]] == name]
        assert group["count"] == len(mine)
        for key, k in (("top1_hit_rate", "1"), ("top3_hit_rate", "3")):
            assert group[key] == pytest.approx(sum(q["hits"][k] for q in mine) / len(mine))
    assert (groups["human"]["top1_hit_rate"], groups["llm"]["top1_hit_rate"]) == (1.0, 0.0)
    assert groups["llm"]["top3_hit_rate"] == 1.0 and groups["unknown"]["top3_hit_rate"] == 0.0
    assert groups["human"]["intervals"]["top1_hit_rate"]["successes"] == 3

    shown = run_reval("runs", "show", run["run_id"], "--db", db, "--by-source", sourced)
    assert shown.returncode == 0, shown.stderr
    table = shown.stdout.split("by label source", 1)[1]
    assert "human" in table and "1.000 (3/3)" in table and "0.000 (0/1)" in table
    plain = run_reval("runs", "show", run["run_id"], "--db", db)
    assert "by label source" not in plain.stdout


def test_a_set_file_that_is_not_the_runs_is_refused(
    sourced: Path, tmp_path: Path, serve_scripted: Callable[[Mapping[str, list[str]]], str]
) -> None:
    db = f"sqlite:///{tmp_path / 'runs.db'}"
    done = run_reval("eval", "--set", sourced, serve_scripted(ANSWERS), "--db", db, "--format",
                     "json")  # fmt: skip
    run_id = json.loads(done.stdout)["runs"][0]["run_id"]
    other = tmp_path / "other.yaml"
    other.write_text("reval_question_set: 1\nname: other\nquestions:\n"
                     "  - {id: x, question: Else?, expected_document_ids: [faq]}\n")  # fmt: skip
    refused = run_reval("runs", "show", run_id, "--db", db, "--by-source", other)
    assert refused.returncode == 2
    assert "holds none of the questions" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
