"""What ids, questions and servers send never reaches the terminal raw: control
characters are escaped and long ids shortened in the text report; JSON keeps them whole.
``sets validate`` warns about questions over the contract's question limit."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from cli.conftest import run_reval
from retrieval_eval import serve
from retrieval_eval.retrievers.contract.limits import MAX_QUESTION_BYTES
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
    text = done.stdout + done.stderr
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert "\\x1b[2J\\x1b]0;pwned\\x07evil" in done.stdout
    assert "\\x1b[31mshard\\x1b[0m offline\\r\\n" in done.stdout
    assert LONG_ID not in done.stdout and "…(2,000 chars)" in done.stdout
    document = out.read_text(encoding="utf-8")
    assert LONG_ID in document  # the JSON keeps ids whole
    assert ESC_ID in _strings(json.loads(document))


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return {s for item in items for s in _strings(item)}


def test_sets_validate_warns_about_questions_over_the_contract_limit(tmp_path: Path):
    long_text = "é" * (MAX_QUESTION_BYTES // 2 + 1)
    path = tmp_path / "long.json"
    questions = [
        {"id": "long", "question": long_text, "expected_document_ids": ["d"]},
        {"id": "fits", "question": "é" * (MAX_QUESTION_BYTES // 2), "expected_document_ids": []},
    ]
    path.write_text(json.dumps({"name": "long", "questions": questions}), encoding="utf-8")
    done = run_reval("sets", "validate", path)
    assert done.returncode == 0, done.stderr
    [warning] = [line for line in done.stdout.splitlines() if "warning" in line]
    assert f"question 'long' is {MAX_QUESTION_BYTES + 2:,} bytes" in warning
    assert f"{MAX_QUESTION_BYTES:,}-byte limit" in warning
    as_json = json.loads(run_reval("sets", "validate", "--format", "json", path).stdout)
    assert len(as_json["sets"][0]["warnings"]) == 1


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
