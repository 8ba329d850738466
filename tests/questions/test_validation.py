"""Every validation problem names the file, the line and the question, all in one pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.questions import jsonl, only, problems, write

from retrieval_eval.errors import InputError, QuestionSetError
from retrieval_eval.questions.loading import load_question_set

GOOD_Q = "  - id: ok\n    question: fine\n    form: match\n    expected_document_ids: [d1]\n"


def yaml_set(tmp_path: Path, question_lines: str) -> Path:
    """A YAML set whose second question starts at line 7."""
    return write(tmp_path / "set.yaml", "name: s\nquestions:\n" + GOOD_Q + question_lines)


# (yaml lines of the second question, line of the problem, question label, message)
YAML_CASES = [
    (
        "  - id: q2\n    form: gap\n    expected_document_ids: []\n",
        7,
        "question 'q2'",
        "missing 'question' text",
    ),
    (
        "  - id: q2\n    question: '  '\n    expected_document_ids: []\n",
        8,
        "question 'q2'",
        "empty 'question' text",
    ),
    (
        "  - id: q2\n    question: [a]\n    expected_document_ids: []\n",
        8,
        "question 'q2'",
        "'question' must be text, got a list",
    ),
    (
        "  - id: q2\n    question: x\n    form: MACTH\n    expected_document_ids: []\n",
        9,
        "question 'q2'",
        "unknown form 'MACTH'; expected MATCH, GAP, UNLABELLED (any case); did you mean 'MATCH'?",
    ),
    (
        "  - id: q2\n    question: x\n    form: 1\n    expected_document_ids: []\n",
        9,
        "question 'q2'",
        "'form' must be one of MATCH, GAP, UNLABELLED, got an integer (1)",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids: [d1, d2, d1]\n",
        9,
        "question 'q2'",
        "expected_document_ids lists 'd1' twice",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids: [d1, 123]\n",
        9,
        "question 'q2'",
        "expected_document_ids item 2 must be a string, got an integer (123); quote it",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids: [d1, '']\n",
        9,
        "question 'q2'",
        "expected_document_ids item 2 is an empty id",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids: d1\n",
        9,
        "question 'q2'",
        "'expected_document_ids' must be a list of ids, got a string ('d1')",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids:\n",
        9,
        "question 'q2'",
        "'expected_document_ids' must be a list of ids, got null "
        "(write [] when no document answers the question)",
    ),
    (
        "  - id: q2\n    question: x\n",
        7,
        "question 'q2'",
        "missing 'expected_document_ids' or 'judgments' (write [] when no document answers "
        "the question)",
    ),
    (
        "  - id: 42\n    question: x\n    expected_document_ids: []\n",
        7,
        "question '42'",
        "'id' must be a string, got an integer (42); quote it",
    ),
    ("  - question: x\n    expected_document_ids: []\n", 7, "question #2", "missing 'id'"),
    (
        "  - id: ''\n    question: x\n    expected_document_ids: []\n",
        7,
        "question #2",
        "empty 'id'",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids: []\n    expcted: [d1]\n",
        10,
        "question 'q2'",
        "unknown key 'expcted'; did you mean 'expected_document_ids'?",
    ),
    (
        "  - id: q2\n    text: x\n    question: y\n    expected_document_ids: []\n",
        8,
        "question 'q2'",
        "unknown key 'text'; did you mean 'question'?",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids: []\n    hard_class: 3\n",
        10,
        "question 'q2'",
        "'hard_class' must be non-empty text or absent, got an integer (3)",
    ),
    (
        "  - id: q2\n    question: x\n    expected_document_ids: []\n    answer_gist: ''\n",
        10,
        "question 'q2'",
        "'answer_gist' must be non-empty text or absent, got an empty string",
    ),
    (
        "  - id: q2\n    question: x\n    form: gap\n    form: match\n"
        "    expected_document_ids: []\n",
        10,
        "question 'q2'",
        "key 'form' given twice (the last one would win)",
    ),
    ("  - [q2, x]\n", 7, "question #2", "expected a mapping of fields, got a list"),
    (
        "  - id: ok\n    question: again\n    expected_document_ids: []\n",
        7,
        "question 'ok'",
        "duplicate question id (first at line 3)",
    ),
]


@pytest.mark.parametrize(
    ("lines", "line", "who", "message"), YAML_CASES, ids=[c[3][:40] for c in YAML_CASES]
)
def test_each_yaml_problem_names_file_line_and_question(
    tmp_path: Path, lines: str, line: int, who: str, message: str
) -> None:
    path = yaml_set(tmp_path, lines)
    assert only(path) == f"{path}:{line}: {who}: {message}"


GOOD = {"id": "ok", "question": "fine", "expected_document_ids": ["d1"]}

JSONL_CASES = [
    (
        {"id": "q2", "question": " ", "expected_document_ids": []},
        "question 'q2'",
        "empty 'question' text",
    ),
    ({"id": "q2", "expected_document_ids": []}, "question 'q2'", "missing 'question' text"),
    (
        {"id": "q2", "question": "x", "form": "partial", "expected_document_ids": []},
        "question 'q2'",
        "unknown form 'partial'; expected MATCH, GAP, UNLABELLED (any case)",
    ),
    (
        {"id": "q2", "question": "x", "expected_document_ids": ["a", "a"]},
        "question 'q2'",
        "expected_document_ids lists 'a' twice",
    ),
    (
        {"id": "q2", "question": "x", "expected_document_ids": [7]},
        "question 'q2'",
        "expected_document_ids item 1 must be a string, got an integer (7); quote it",
    ),
    (
        {"id": 2.5, "question": "x", "expected_document_ids": []},
        "question '2.5'",
        "'id' must be a string, got a number (2.5); quote it",
    ),
    (
        {"id": "q2", "question": "x", "expected_document_ids": [], "gist": "g"},
        "question 'q2'",
        "unknown key 'gist'; did you mean 'answer_gist'?",
    ),
    (
        {"id": "ok", "question": "x", "expected_document_ids": []},
        "question 'ok'",
        "duplicate question id (first at line 2)",
    ),
    (
        '{"id": "q2", "question": "x", "form": "GAP", "form": "MATCH", '
        '"expected_document_ids": []}',
        "question 'q2'",
        "key 'form' given twice (the last one would win)",
    ),
    (
        '{"id": "q2", "question": "x", "expected_document_ids": [}',
        "",
        "invalid JSON: Expecting value (column 57) (in question 'q2')",
    ),
    (
        '"just a string"',
        "question #2",
        "expected a mapping of fields, got a string ('just a string')",
    ),
    (
        {"reval_question_set": 1, "id": "q2", "question": "x", "expected_document_ids": []},
        "question 'q2'",
        "the reval_question_set header must be the first line",
    ),
]


@pytest.mark.parametrize(
    ("record", "who", "message"), JSONL_CASES, ids=[c[2][:40] for c in JSONL_CASES]
)
def test_each_jsonl_problem_names_file_line_and_question(
    tmp_path: Path, record: object, who: str, message: str
) -> None:
    path = jsonl(tmp_path, GOOD, record)
    prefix = f"{path}:3: {who}: " if who else f"{path}:3: "
    assert only(path) == prefix + message


def test_json_problems_name_the_line_of_the_key_or_question(tmp_path: Path) -> None:
    path = write(
        tmp_path / "set.json",
        '{\n  "name": "s",\n  "questions": [\n'
        '    {"id": "ok", "question": "x", "expected_document_ids": []},\n'
        '    {\n      "id": "ok",\n      "question": "y",\n      "expcted": [],\n'
        '      "expected_document_ids": ["d", "d"]\n    }\n  ]\n}\n',
    )
    assert problems(path) == [
        f"{path}:6: question 'ok': duplicate question id (first at line 4)",
        f"{path}:8: question 'ok': unknown key 'expcted'; did you mean 'expected_document_ids'?",
        f"{path}:9: question 'ok': expected_document_ids lists 'd' twice",
    ]


def test_invalid_yaml_and_json_name_the_line_and_nearest_question(tmp_path: Path) -> None:
    bad_yaml = yaml_set(tmp_path, "  - id: q2\n    question: [unclosed\n    form: gap\n")
    assert only(bad_yaml) == (
        f"{bad_yaml}:9: invalid YAML: did not find expected ',' or ']' "
        "(while parsing a flow sequence at line 8) (in or after question 'q2')"
    )
    bad_json = write(
        tmp_path / "set.json",
        '{"questions": [\n {"id": "q1", "question": "x", "expected_document_ids": []},\n'
        ' {"id": "q2", "question": "y", "expected_document_ids": [],}\n]}\n',
    )
    assert only(bad_json) == (
        f"{bad_json}:3: invalid JSON: Expecting property name enclosed in double quotes "
        "(column 60) (in or after question 'q2')"
    )


def test_set_level_problems_name_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "set.yaml",
        "reval_question_set: 2\nname: ''\ndescripton: x\nquestions:\n" + GOOD_Q,
    )
    assert problems(path) == [
        f"{path}:1: reval_question_set is 2; this reval reads version 1",
        f"{path}:2: 'name' must be a non-empty string, got a string ('')",
        f"{path}:3: unknown set key 'descripton'; did you mean 'description'?",
    ]
    assert only(write(tmp_path / "empty.yaml", "name: s\nquestions: []\n")).endswith(
        "empty.yaml:2: the set has no questions"
    )
    assert only(write(tmp_path / "str.yaml", "just text\n")).endswith(
        "str.yaml:1: expected a mapping with a 'questions' list, got a string ('just text')"
    )
    assert only(write(tmp_path / "noq.json", '{"name": "s"}')).endswith(
        "noq.json:1: no 'questions' list"
    )


def test_unreadable_files_are_problems_too(tmp_path: Path) -> None:
    assert only(write(tmp_path / "x.txt", "")) == (
        f"{tmp_path / 'x.txt'}: unknown set file type; expected one of .json, .jsonl, .yaml, .yml "
        "(optionally .gz)"
    )
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("questions: [caf\xe9]".encode("latin-1"))
    assert only(latin) == f"{latin}: not UTF-8 text (byte 15)"
    fake_gz = tmp_path / "s.jsonl.gz"
    fake_gz.write_text("not gzip")
    assert only(fake_gz).startswith(f"{fake_gz}: cannot read: not a valid gzip file")


def test_loading_is_all_or_nothing_with_every_problem(tmp_path: Path) -> None:
    path = jsonl(
        tmp_path,
        GOOD,
        {"id": "a", "question": "", "expected_document_ids": []},
        "{broken",
        {"id": "b", "question": "x", "form": "nope", "expected_document_ids": [1]},
        GOOD,
    )
    with pytest.raises(QuestionSetError) as caught:
        load_question_set(path)
    error = caught.value
    assert isinstance(error, InputError)
    assert error.problems == [
        f"{path}:3: question 'a': empty 'question' text",
        f"{path}:4: invalid JSON: Expecting property name enclosed in double quotes (column 2)",
        f"{path}:5: question 'b': unknown form 'nope'; expected MATCH, GAP, UNLABELLED (any case)",
        f"{path}:5: question 'b': expected_document_ids item 1 must be a string, "
        "got an integer (1); quote it",
        f"{path}:6: question 'ok': duplicate question id (first at line 2)",
    ]
    assert str(error).splitlines()[0] == f"5 problems in {path}:"
    assert str(error).splitlines()[1:] == ["  " + p for p in error.problems]


def test_one_problem_is_a_one_line_error(tmp_path: Path) -> None:
    path = jsonl(tmp_path, {"id": "a", "question": "", "expected_document_ids": []})
    with pytest.raises(QuestionSetError) as caught:
        load_question_set(path)
    assert str(caught.value) == f"{path}:2: question 'a': empty 'question' text"
