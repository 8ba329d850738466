"""A model grades a generated draft's candidates (``sets judge --llm-url``), a person judges
a sample through the judging page's own code path, ``sets agreement`` measures them, and
only a rule the team wrote in reval.toml lets the model's grades become labels: below it
the set stays a draft and cannot gate."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from support.chat_server import ChatServer, Reply, completion, error, prompt_of
from support.model_jobs import generated, grader, questions, reval

from retrieval_eval.example_data import corpus_path
from retrieval_eval.labelling.agreement import agreement
from retrieval_eval.labelling.judge import Judgement, save_judgement

CORPUS = corpus_path()


def test_model_grades_become_labels_only_under_the_teams_rule(tmp_path: Path) -> None:
    draft = tmp_path / "draft.yaml"
    generated(tmp_path, draft, 8)
    ids = [q["id"] for q in questions(draft)]
    assert len(ids) == 16
    # The model grades every candidate; it calls the GAP questions (everyday wording) wrong.
    with ChatServer(grader({"vanished"})) as server:
        graded = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS,
                       "--llm-url", server.url, "--model", "judge")  # fmt: skip
        assert graded.returncode == 0, graded.stderr
        assert len(server.requests) == 16
        again = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS,
                      "--llm-url", server.url, "--model", "judge")  # fmt: skip
        assert len(server.requests) == 16  # nothing left to grade: nothing asked
    assert "0 of 0 candidates graded" in again.stdout
    source = graded.stdout.split(": ", 1)[0]
    assert re.fullmatch(r"llm:judge@sha256:[0-9a-f]{12}", source), graded.stdout
    for q in questions(draft):
        assert q["labelling"]["state"] == "unjudged"  # advice, not labels
        assert q["labelling"]["candidates"][0]["relevant"] is None
        entry = q["labelling"]["history"][-1]
        assert entry["by"] == source and set(entry["reasons"]) == set(entry["grades"])
    # A person judges half of the questions through the judging page's code path: every
    # source document relevant (so the model is wrong on the GAP ones she judged).
    for q in questions(draft)[:8]:
        doc = q["expected_document_ids"][0]
        save_judgement(draft, Judgement(q["id"], relevant=frozenset({doc}), complete=True,
                                        judge="ana"))  # fmt: skip
    result = agreement(draft, (source, "ana"))
    assert result.items == 8 and result.both == 4 and result.second_only == 4
    shown = reval(tmp_path, "sets", "agreement", draft, "--judge", source, "--judge", "ana")
    assert shown.returncode == 0, shown.stderr
    assert "decisions compared: 8" in shown.stdout
    assert "grade >= 1: kappa" in shown.stdout and "more shared decisions" in shown.stdout
    # No rule: nothing is accepted.
    norule = reval(tmp_path, "sets", "agreement", draft, "--judge", source, "--judge", "ana",
                   "--accept")  # fmt: skip
    assert norule.returncode == 2 and "no [labels] rule" in norule.stderr
    (tmp_path / "reval.toml").write_text("[labels]\nmin_kappa = 0.6\nmin_items = 5\n")
    below = reval(tmp_path, "sets", "agreement", draft, "--judge", source, "--judge", "ana",
                  "--accept")  # fmt: skip
    assert below.returncode == 1 and "is below min_kappa 0.6" in below.stderr
    refused = reval(tmp_path, "sets", "validate", draft)
    assert (
        refused.returncode == 2
        and "8 questions are not judged yet" in refused.stdout + refused.stderr
    )


def test_a_model_that_agrees_is_accepted_and_the_set_gates(tmp_path: Path) -> None:
    draft = tmp_path / "draft.yaml"
    generated(tmp_path, draft, 8)
    with ChatServer(grader({"nothing-matches-this"})) as server:
        graded = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS,
                       "--llm-url", server.url, "--model", "judge")  # fmt: skip
    source = graded.stdout.split(": ", 1)[0]
    everything = questions(draft)
    for q in everything[:6]:
        doc = q["expected_document_ids"][0]
        save_judgement(draft, Judgement(q["id"], relevant=frozenset({doc}), complete=True,
                                        judge="ana"))  # fmt: skip
    # ana rejects one, so that kappa is defined (two judges who both say yes to everything
    # agree only by chance, as far as kappa can tell)
    last = everything[6]
    save_judgement(draft, Judgement(last["id"], nothing_answers=True, judge="ana"))
    (tmp_path / "reval.toml").write_text("[labels]\nmin_kappa = -1\nmin_items = 5\n")
    accepted = reval(tmp_path, "sets", "agreement", draft, "--judge", source, "--judge", "ana",
                     "--accept")  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr
    assert f"9 questions now judged by {source}" in accepted.stdout
    after = questions(draft)
    for q in after[7:]:
        labelling = q["labelling"]
        assert labelling["state"] == "judged" and labelling["judged_by"] == source
        assert labelling["accepted"]["against"] == "ana"
        (candidate,) = labelling["candidates"]
        assert candidate["relevant"] is True and candidate["source"] == source
        assert candidate["reason"].startswith("grade 1 for ")
    assert after[6]["labelling"]["judged_by"] == "ana"  # a person's judgement is never replaced
    assert reval(tmp_path, "sets", "validate", draft).returncode == 0


def test_failures_are_never_grades(tmp_path: Path) -> None:
    draft = tmp_path / "draft.yaml"
    generated(tmp_path, draft, 3)
    script = iter([completion('{"grade": 7, "reason": "off scale"}'),
                   completion("Relevant."), completion("", refusal="no")])  # fmt: skip

    def model(request: dict[str, Any]) -> Reply:
        return next(script, None) or error(400, "bad request")

    with ChatServer(model) as server:
        done = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS, "--llm-url",
                     server.url, "--model", "judge", "--concurrency", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "0 of 6 candidates graded" in done.stdout
    assert (
        "not graded: 3 http, 2 off-format, 1 refusal (never counted as not relevant)" in done.stdout
    )
    for q in questions(draft):
        assert len(q["labelling"]["history"]) == 1  # only the generator's claim


def test_a_graded_draft_is_graded_on_its_own_scale(tmp_path: Path) -> None:
    draft = tmp_path / "draft.yaml"
    generated(tmp_path, draft, 2)
    text = draft.read_text(encoding="utf-8")
    draft.write_text(text.replace("\nname:", "\ngrade_scale: [0, 3]\nrelevance_level: 2\nname:", 1))
    grades = iter([3, 1, 5, 2])  # 5 is off the scale: a failure, never a grade

    def model(request: dict[str, Any]) -> Reply:
        assert "0: does not answer the question" in prompt_of(request)
        assert "3: answers the question fully" in prompt_of(request)
        return completion(json.dumps({"grade": next(grades), "reason": "graded"}))

    with ChatServer(model) as server:
        done = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS, "--llm-url",
                     server.url, "--model", "judge", "--concurrency", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "3 of 4 candidates graded" in done.stdout and "1 off-format" in done.stdout
    entries = [q["labelling"]["history"][-1] for q in questions(draft)]
    graded = {g for e in entries if e["by"].startswith("llm:judge") for g in e["grades"].values()}
    assert graded == {3, 1, 2}
    for entry in entries:
        if entry["by"].startswith("llm:judge"):
            ((doc, grade),) = entry["grades"].items()
            assert (doc in entry["relevant"]) is (grade >= 2)  # the set's relevance level


def test_a_cut_answer_and_a_timeout_are_failures_never_grades(tmp_path: Path) -> None:
    draft = tmp_path / "draft.yaml"
    generated(tmp_path, draft, 2)
    released = threading.Event()
    script = iter([completion('{"grade": 1, "reason": "answers', finish_reason="length")])

    def model(request: dict[str, Any]) -> Reply:
        reply = next(script, None)
        if reply is None:  # too slow: the call's deadline passes first
            released.wait(timeout=60)
            return completion('{"grade": 1, "reason": "late"}')
        return reply

    try:
        with ChatServer(model) as server:
            done = reval(tmp_path, "sets", "judge", draft, "--corpus", CORPUS, "--llm-url",
                         server.url, "--model", "judge", "--concurrency", "1",
                         "--llm-timeout", "1", "--no-cache")  # fmt: skip
            released.set()
    finally:
        released.set()
    assert done.returncode == 0, done.stderr
    assert "0 of 4 candidates graded" in done.stdout
    assert "not graded: 3 timeout, 1 truncated (never counted as not relevant)" in done.stdout
    for q in questions(draft):
        assert len(q["labelling"]["history"]) == 1  # only the generator's claim
