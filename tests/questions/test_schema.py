"""The JSON Schema agrees with the loader: what one rejects for shape, the other does too."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from support.questions import reval, write

from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.schema import header_schema, question_schema, question_set_schema
from retrieval_eval.questions.validate.keys import HEADER_KEYS, QUESTION_KEYS

VALIDATOR = jsonschema.Draft202012Validator(question_set_schema())
GOOD = {"id": "q1", "question": "x?", "form": "match", "expected_document_ids": ["d1"]}


def test_the_schema_is_valid_and_names_the_loaders_keys() -> None:
    jsonschema.Draft202012Validator.check_schema(question_set_schema())
    assert tuple(question_schema()["properties"]) == QUESTION_KEYS
    top = question_set_schema()["oneOf"][0]["properties"]
    assert set(top) == set(HEADER_KEYS)


def test_the_example_sets_are_valid(repo_root: Path) -> None:
    sets = repo_root / "examples" / "question-set-provider" / "reval_example_provider" / "sets"
    VALIDATOR.validate(yaml.safe_load((sets / "faq.yaml").read_text()))
    header, *lines = (sets / "gaps.jsonl").read_text().splitlines()
    jsonschema.validate(json.loads(header), header_schema())
    for line in lines:
        jsonschema.validate(json.loads(line), question_schema())


@pytest.mark.parametrize(
    "change",
    [
        {"expcted": []},
        {"id": 3},
        {"id": ""},
        {"question": "  "},
        {"question": "\x85\u3000"},  # White_Space, some of it not ECMAScript's \\s
        {"expected_document_ids": ["\u2007"]},
        {"form": "MACTH"},
        {"expected_document_ids": ["d1", "d1"]},
        {"expected_document_ids": [1]},
        {"expected_document_ids": "d1"},
        {"hard_class": ""},
    ],
)
def test_schema_and_loader_both_reject(tmp_path: Path, change: dict[str, object]) -> None:
    bad = {**GOOD, **change}
    assert not VALIDATOR.is_valid({"questions": [bad]})
    path = write(tmp_path / "s.json", json.dumps({"questions": [bad]}))
    with pytest.raises(QuestionSetError):
        load_question_set(path)


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"form": "Gap"},
        {"form": None},
        {"expected_document_ids": []},
        # Not White_Space, though str.strip() and ECMAScript's \\s take some of them for it.
        {"question": "\x1c\x1f"},
        {"question": "\ufeff"},
        {"expected_document_ids": ["\x1e"]},
    ],
)
def test_schema_and_loader_both_accept(tmp_path: Path, change: dict[str, object]) -> None:
    good = {**GOOD, **change}
    VALIDATOR.validate({"name": "s", "questions": [good]})
    VALIDATOR.validate([good])
    load_question_set(write(tmp_path / "s.json", json.dumps({"name": "s", "questions": [good]})))


def test_cli_prints_each_part(capsys) -> None:
    parts = {"document": question_set_schema, "question": question_schema, "header": header_schema}
    for part, build in parts.items():
        assert reval("sets", "schema", "--part", part) == 0
        assert json.loads(capsys.readouterr().out) == build()
    assert reval("sets", "schema") == 0
    assert json.loads(capsys.readouterr().out)["title"].startswith("reval golden question set")
