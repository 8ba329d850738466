"""Edge cases of the file formats: form spelling, keys given twice, empty and
multi-document files."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.questions import jsonl, only, problems, write

from retrieval_eval.questions.loading import load_question_set


def test_forms_are_case_insensitive_and_trimmed(tmp_path: Path) -> None:
    records = [
        {"id": f"q{i}", "question": "x", "form": form, "expected_document_ids": []}
        for i, form in enumerate(["match", "Gap", " MATCH ", "unlabelled", None])
    ]
    qs = load_question_set(jsonl(tmp_path, *records))
    assert [q.form.value for q in qs.questions] == [
        "MATCH",
        "GAP",
        "MATCH",
        "UNLABELLED",
        "UNLABELLED",
    ]


def test_keys_given_twice_are_caught_in_json_whatever_the_spacing(tmp_path: Path) -> None:
    path = write(
        tmp_path / "set.json",
        '{"name": "s", "name" : "t", "questions": [\n'
        '  {"id": "a", "question": "x", "expected_document_ids": []},\n'
        '  {"id": "b", "question": "x: \\"y\\":", "expected_document_ids": [],\n'
        '   "hard_class": "c", "hard_class"\n: "d"}\n]}\n',
    )
    assert problems(path) == [
        f"{path}:1: key 'name' given twice",
        f"{path}:3: question 'b': key 'hard_class' given twice (the last one would win)",
    ]
    # string values that look like keys do not hide anything, nor invent duplicates
    clean = write(
        tmp_path / "clean.jsonl",
        '{"id": "a", "question": "k\\": v", "expected_document_ids": []}\n',
    )
    assert load_question_set(clean).questions[0].question == 'k": v'


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("empty.yaml", "", "{path}:1: expected a mapping with a 'questions' list, got null"),
        ("empty.json", "", "{path}:1: invalid JSON: Expecting value (column 1)"),
        ("empty.jsonl", "\n\n", "{path}: the set has no questions"),
        (
            "two.yaml",
            "questions: []\n---\nquestions: []\n",
            "{path}:2: invalid YAML: but found another document "
            "(expected a single document in the stream at line 1)",
        ),
    ],
)
def test_empty_and_multi_document_files(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    path = write(tmp_path / name, text)
    assert only(path) == expected.format(path=path)
