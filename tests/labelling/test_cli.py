"""The labelling commands as a user runs them: draft, refuse, extend, agreement; exit codes."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import yaml
from support.labelling import CORPUS, QUESTIONS

from retrieval_eval.labelling.judge import Judgement, save_judgement

REVAL = Path(sys.executable).parent / "reval"


def reval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "CI": "1"}
    return subprocess.run(
        [str(REVAL), *map(str, args)], capture_output=True, text=True, timeout=120, env=env
    )


def test_draft_refuse_judge_extend_and_agree(
    tmp_path: Path,
    bm25_specs: tuple[str, str],
    question_file: Path,
    serve_scripted: Callable[[Mapping[str, list[str]]], str],
) -> None:
    out = tmp_path / "draft.yaml"
    pages, chunks = bm25_specs
    done = reval(
        "sets",
        "draft",
        question_file,
        "--corpus",
        CORPUS,
        "--retriever",
        pages,
        "--retriever",
        chunks,
        "--depth",
        "3",
        "--out",
        out,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{out}: 4 questions, ")
    for command in (("sets", "validate", out), ("eval", "--set", out, pages)):
        refused = reval(*command)
        assert refused.returncode == 2
        assert "4 questions are not judged yet (q001, q002, q003, q004)" in (
            refused.stdout + refused.stderr
        )
    questions = yaml.safe_load(out.read_text())["questions"]
    for judge, pick in (("ana", 1), ("ben", 2)):
        for q in questions:
            docs = [c["document_id"] for c in q["labelling"]["candidates"]]
            save_judgement(
                out, Judgement(q["id"], frozenset(docs[:pick]), frozenset(docs[pick:]), judge=judge)
            )
    assert reval("eval", "--set", out, pages).returncode == 0

    agreement = reval("sets", "agreement", out)
    assert agreement.returncode == 0, agreement.stderr
    assert "judges: ana and ben" in agreement.stdout
    assert "questions judged by both: 4" in agreement.stdout
    assert "Cohen's kappa: " in agreement.stdout

    third = serve_scripted({QUESTIONS[2]: ["system-requirements#0", "mobile-app#3"]})
    before = {q["id"]: q for q in yaml.safe_load(out.read_text())["questions"]}
    extended = reval("sets", "draft", "--extend", out, "--corpus", CORPUS, "--retriever", third)
    assert extended.returncode == 0, extended.stderr
    after = {q["id"]: q for q in yaml.safe_load(out.read_text())["questions"]}
    seen = {c["document_id"] for c in before["q003"]["labelling"]["candidates"]}
    new = {"system-requirements", "mobile-app"} - seen
    assert extended.stdout.strip().endswith(
        f"{len(new)} new candidates; {1 if new else 0} of 4 questions to judge"
    )
    added = [c for c in after["q003"]["labelling"]["candidates"] if c["document_id"] in new]
    assert all(c["relevant"] is None for c in added) and len(added) == len(new)
    for qid in ("q001", "q002", "q004"):
        assert after[qid]["labelling"]["candidates"] == [
            {**c, "found_by": c["found_by"]} for c in before[qid]["labelling"]["candidates"]
        ]

    bad = reval("sets", "draft", question_file, "--corpus", CORPUS, "--retriever", pages)
    assert bad.returncode == 2 and "give QUESTIONS and --out" in bad.stderr
    broken = reval(
        "sets",
        "draft",
        question_file,
        "--corpus",
        CORPUS,
        "--retriever",
        "grpc://127.0.0.1:1",
        "--out",
        tmp_path / "x.yaml",
        "--timeout",
        "2",
    )
    assert broken.returncode == 3 and not (tmp_path / "x.yaml").exists()


def test_a_blind_draft_keeps_the_questions_and_leaves_the_labels_out(
    tmp_path: Path, bm25_specs: tuple[str, str], question_file: Path
) -> None:
    from retrieval_eval.example_data import questions_path

    pages, _ = bm25_specs
    out = tmp_path / "blind.yaml"
    done = reval("sets", "draft", questions_path(), "--blind", "--corpus", CORPUS,
                 "--retriever", pages, "--depth", "2", "--out", out)  # fmt: skip
    assert done.returncode == 0, done.stderr
    people = yaml.safe_load(questions_path().read_text())["questions"]
    blind = yaml.safe_load(out.read_text())["questions"]
    assert [(q["id"], q["question"]) for q in blind] == [(q["id"], q["question"]) for q in people]
    for q in blind:
        assert q["expected_document_ids"] == [] and "answer_gist" not in q
        assert [c["relevant"] for c in q["labelling"]["candidates"]] == [None, None]
    # without --blind the labels come along, decided
    seen = tmp_path / "seen.yaml"
    reval("sets", "draft", questions_path(), "--corpus", CORPUS, "--retriever", pages,
          "--depth", "2", "--out", seen)  # fmt: skip
    first = yaml.safe_load(seen.read_text())["questions"][0]
    assert first["expected_document_ids"] == people[0]["expected_document_ids"]
    refused = reval("sets", "draft", question_file, "--blind", "--corpus", CORPUS,
                    "--retriever", pages, "--out", tmp_path / "x.yaml")  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        f"reval: error: {question_file}: --blind leaves out a set file's labels; "
        "this is no set file"
    )
