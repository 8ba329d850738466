"""What ids, questions and servers send never reaches the terminal raw: control
characters are escaped and long ids shortened in the text report; JSON keeps them whole.
``sets validate`` refuses questions and ids over the contract's limits, and the client
never sends a question over them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from support.cli import run_reval

from retrieval_eval import serve
from retrieval_eval.retrievers.contract.limits import MAX_ID_BYTES, MAX_QUESTION_BYTES
from retrieval_eval.retrievers.protocol import RetrievedItem

ESC_ID = "\x1b[2J\x1b]0;pwned\x07evil"
LONG_ID = "L" * 2000


@dataclass
class Hostile:
    """Answers with ids that hold terminal escapes or are long; fails with an escape."""

    calls: list[str] = field(default_factory=list)

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        if "faq-2" in question:
            raise RuntimeError("\x1b[31mshard\x1b[0m offline\r\n")
        return [RetrievedItem(ESC_ID), RetrievedItem(LONG_ID)]

    def describe(self) -> str:
        return "hostile"


def test_control_characters_and_long_ids_never_reach_the_terminal(sets, db, tmp_path: Path):
    out = tmp_path / "report.json"
    with serve(Hostile()) as handle:
        done = run_reval(
            "eval", "--set", sets["faq"], "--retriever", f"grpc://{handle.address}",
            "--db", db, "--format", "json", "--output", out,
        )  # fmt: skip
    assert done.returncode in (0, 3), done.stderr
    (run,) = json.loads(out.read_text(encoding="utf-8"))["runs"]
    shown = run_reval("runs", "show", run["run_id"], "--db", db)  # the text report
    text = done.stdout + done.stderr + shown.stdout + shown.stderr
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert "\\x1b[2J\\x1b]0;pwned\\x07evil" in shown.stdout
    assert "\\x1b[31mshard\\x1b[0m offline\\r\\n" in shown.stdout
    assert "\\x1b[31mshard\\x1b[0m offline\\r\\n" in done.stderr  # the first error, escaped
    assert LONG_ID not in shown.stdout and "…(2,000 chars)" in shown.stdout
    document = out.read_text(encoding="utf-8")
    assert LONG_ID in document  # the JSON keeps ids whole
    assert ESC_ID in _strings(json.loads(document))


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return {s for item in items for s in _strings(item)}


def test_sets_validate_refuses_questions_and_ids_beyond_the_contract(tmp_path: Path):
    long_text = "é" * (MAX_QUESTION_BYTES // 2 + 1)
    path = tmp_path / "long.json"
    questions = [
        {"id": "long", "question": long_text, "expected_document_ids": ["d"]},
        {"id": "fits", "question": "é" * (MAX_QUESTION_BYTES // 2), "expected_document_ids": []},
        {"id": "big-id", "question": "q", "expected_document_ids": ["i" * (MAX_ID_BYTES + 1)]},
        {"id": "max-id", "question": "q", "expected_document_ids": ["i" * MAX_ID_BYTES]},
    ]
    path.write_text(json.dumps({"name": "long", "questions": questions}), encoding="utf-8")
    done = run_reval("sets", "validate", path)
    assert done.returncode == 2, done.stderr
    [question] = [line for line in done.stdout.splitlines() if "'long'" in line]
    assert f"question is {MAX_QUESTION_BYTES + 2:,} bytes" in question
    assert f"{MAX_QUESTION_BYTES:,}-byte limit" in question
    [doc] = [line for line in done.stdout.splitlines() if "'big-id'" in line]
    assert f"{MAX_ID_BYTES + 1:,} bytes" in doc and f"{MAX_ID_BYTES:,}-byte" in doc
    assert "2 problems in 1 of 1 sets" in done.stderr
    as_json = json.loads(run_reval("sets", "validate", "--format", "json", path).stdout)
    assert not as_json["valid"] and len(as_json["sets"][0]["problems"]) == 2


def test_the_client_never_sends_a_question_over_the_contract_limit(db, tmp_path: Path):
    recorder = Recorder()
    handle = serve(recorder)
    try:
        path = tmp_path / "long.json"
        questions = [
            {
                "id": "long",
                "question": "x" * (MAX_QUESTION_BYTES + 1),
                "expected_document_ids": ["d"],
            },
            {"id": "short", "question": "short", "expected_document_ids": ["d"]},
        ]
        path.write_text(json.dumps({"name": "long", "questions": questions}), encoding="utf-8")
        done = run_reval("eval", "--set", path, "--retriever", f"grpc://{handle.address}",
                         "--db", db, "--format", "json", "--max-errors", "1")  # fmt: skip
        assert done.returncode == 0, done.stderr
    finally:
        handle.stop(grace=None)
    assert recorder.calls == ["short"]  # the long one never went over the wire
    (run,) = json.loads(done.stdout)["runs"]
    error = next(q["error"] for q in run["questions"] if q["id"] == "long")
    assert error["kind"] == "rejected" and "not sent" in error["message"]
    assert f"more than the {MAX_QUESTION_BYTES}-byte maximum" in error["message"]


@dataclass
class Recorder:
    calls: list[str] = field(default_factory=list)

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        self.calls.append(question)
        return [RetrievedItem("d")]

    def describe(self) -> str:
        return "recorder"


def test_set_texts_are_escaped_in_sets_show_and_validate(tmp_path: Path):
    path = tmp_path / "esc.yaml"
    path.write_text(
        'name: "a\\e[31mred"\ndescription: "x\\e]0;title\\a"\nquestions:\n'
        '  - {id: "q\\e[2J", question: "a?", expected_document_ids: ["d"], hard_class: "h\\e"}\n',
        encoding="utf-8",
    )
    for command in ("show", "validate"):
        done = run_reval("sets", command, path)
        assert done.returncode == 0, done.stderr
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout
        assert "a\\x1b[31mred" in done.stdout
