"""Judgments in the set model: grades and "judged not relevant" beside (or instead of) a
list of expected ids, in every format, without changing what a plain set fingerprints."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest
import yaml
from support.questions import only, write

from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.formats import write_question_set
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.model import GoldenQuestion, label_fingerprint
from retrieval_eval.questions.schema import question_set_schema
from retrieval_eval.records.outcome import Form

#: Fingerprints that the code before judgments existed gave these sets: a stored run
#: holds them, so a set without grades must keep them exactly.
BEFORE = {
    "src/retrieval_eval/example_data/questions.yaml": (
        "sha256:d1106257d2785617c5a9b98381d0fa36ddaef0b5629af6e2dad0427228bae986"
    ),
    "examples/question-set-provider/reval_example_provider/sets/gaps.jsonl": (
        "sha256:657a82991b948a3b738d794cb214083c176a82b8e7d948452ac79723c6ef9011"
    ),
    "examples/question-set-provider/reval_example_provider/sets/faq.yaml": (
        "sha256:6ece4713fc0f647a95d0fb6d4cfa7a72cdff4bc418b8027263b63c07d313b778"
    ),
}
SEEDED_BEFORE = "sha256:ace856180154b4331f43e155b025509f001e0c7252c14b601ec5eb5900aa3c50"

GRADED = """\
name: graded
grade_scale: [0, 3]
questions:
  - id: q1
    question: How do I install on Linux?
    form: MATCH
    judgments: {install-linux: 2, faq: 0, install-mac: 1}
  - id: q2
    question: How do I reset my password?
    expected_document_ids: [reset]
    judgments: {reset: 3, spam: -2}
  - id: q3
    question: Plain labels
    expected_document_ids: [a, b]
"""


def seeded(n: int = 300) -> list[GoldenQuestion]:
    rng = random.Random(n)
    return [
        GoldenQuestion(
            f"q{i}",
            f"question {i} {rng.random()}",
            rng.choice(list(Form)),
            tuple(dict.fromkeys(f"d{rng.randrange(50)}" for _ in range(rng.randrange(4)))),
            rng.choice([None, "near-duplicate"]),
            None,
        )
        for i in range(n)
    ]


@pytest.mark.parametrize("relative", sorted(BEFORE))
def test_sets_without_grades_fingerprint_as_before(repo_root: Path, relative: str) -> None:
    assert load_question_set(repo_root / relative).fingerprint == BEFORE[relative]


def test_a_seeded_plain_set_fingerprints_as_before_held_either_way() -> None:
    questions = seeded()
    assert label_fingerprint(questions) == SEEDED_BEFORE
    assert label_fingerprint(CompactQuestions.of(questions)) == SEEDED_BEFORE


def test_judgments_of_grade_one_are_a_plain_list(tmp_path: Path) -> None:
    listed = "questions:\n  - {id: q, question: x, expected_document_ids: [a, b]}\n"
    graded = "questions:\n  - {id: q, question: x, judgments: {a: 1, b: 1}}\n"
    a = load_question_set(write(tmp_path / "a.yaml", listed))
    b = load_question_set(write(tmp_path / "b.yaml", graded))
    assert a.fingerprint == b.fingerprint
    assert b.questions[0].judgments == () and not b.graded


def test_grades_and_negatives_are_read_and_fingerprinted(tmp_path: Path) -> None:
    qs = load_question_set(write(tmp_path / "s.yaml", GRADED))
    q1, q2, q3 = qs.questions
    assert q1.expected_document_ids == ("install-linux", "install-mac")
    assert q1.grades == {"install-linux": 2, "faq": 0, "install-mac": 1}
    assert q2.expected_document_ids == ("reset",)
    assert q2.grades == {"reset": 3, "spam": 0}  # a negative grade is judged not relevant
    assert q3.judgments == () and q3.grades == {"a": 1, "b": 1}
    assert qs.grade_scale == (0, 3) and qs.relevance_level == 1 and qs.graded
    without_zero = write(tmp_path / "z.yaml", GRADED.replace(", spam: -2", ""))
    regraded = write(tmp_path / "r.yaml", GRADED.replace("install-linux: 2", "install-linux: 3"))
    fingerprints = {qs.fingerprint}
    for path in (without_zero, regraded):
        fingerprints.add(load_question_set(path).fingerprint)
    assert len(fingerprints) == 3


@pytest.mark.parametrize("suffix", [".yaml", ".json", ".jsonl", ".jsonl.gz"])
def test_a_graded_set_round_trips_in_every_format(tmp_path: Path, suffix: str) -> None:
    qs = load_question_set(write(tmp_path / "s.yaml", GRADED))
    out = tmp_path / f"out{suffix}"
    write_question_set(qs, out)
    back = load_question_set(out)
    assert list(back.questions) == list(qs.questions)
    assert (back.fingerprint, back.grade_scale) == (qs.fingerprint, qs.grade_scale)


def test_jsonl_with_judgments_alone_is_read_by_column(tmp_path: Path) -> None:
    """The spelling an importer writes: one mapping per question, nothing else."""
    lines = [json.dumps({"reval_question_set": 1, "name": "s"})]
    lines += [
        json.dumps({"id": f"q{i}", "question": "x", "judgments": {f"d{i}": 2, "faq": 0}})
        for i in range(5)
    ]
    qs = load_question_set(write(tmp_path / "s.jsonl", "\n".join(lines) + "\n"))
    assert isinstance(qs.questions, CompactQuestions)
    assert qs.questions[3].grades == {"d3": 2, "faq": 0}
    assert qs.questions[3].expected_document_ids == ("d3",)


def test_a_document_both_listed_and_judged_not_relevant_is_one_error(tmp_path: Path) -> None:
    text = "questions:\n  - id: q1\n    question: x\n"
    text += "    expected_document_ids: [a]\n    judgments: {a: 0}\n"
    path = write(tmp_path / "s.yaml", text)
    message = only(path)
    assert message.startswith(f"{path}:5: question 'q1': 'a' is in expected_document_ids")
    assert "judged 0" in message and "\n" not in message


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("{a: 1.5}", "judgments['a'] must be an integer grade, got a number (1.5)"),
        ("{a: true}", "judgments['a'] must be an integer grade, got a boolean (True)"),
        ("{a: '2'}", "judgments['a'] must be an integer grade, got a string ('2')"),
        ("[a, b]", "'judgments' must be a mapping of id -> grade, got a list"),
        ("{'': 1}", "judgments has a document id that is an empty id"),
    ],
)
def test_bad_judgments_are_named(tmp_path: Path, value: str, said: str) -> None:
    text = f"questions:\n  - id: q1\n    question: x\n    judgments: {value}\n"
    assert only(write(tmp_path / "s.yaml", text)).endswith(f"question 'q1': {said}")


@pytest.mark.parametrize(
    ("header", "said"),
    [
        ("relevance_level: 0", "'relevance_level' must be an integer of at least 1"),
        ("grade_scale: [3, 1]", "'grade_scale' must be [lowest, highest]"),
        ("grade_scale: 3", "'grade_scale' must be [lowest, highest]"),
    ],
)
def test_bad_grading_keys_are_named(tmp_path: Path, header: str, said: str) -> None:
    text = f"{header}\nquestions:\n  - {{id: q1, question: x, expected_document_ids: []}}\n"
    assert said in only(write(tmp_path / "s.yaml", text))


def test_the_relevance_level_decides_what_is_expected(tmp_path: Path) -> None:
    qs = load_question_set(write(tmp_path / "s.yaml", GRADED))
    strict = qs.at_level(2)
    assert [q.expected_document_ids for q in strict.questions] == [
        ("install-linux",),
        ("reset",),
        (),
    ]
    assert strict.questions[2].grades == {"a": 1, "b": 1}  # plain ids are grade 1
    assert strict.fingerprint != qs.fingerprint and strict.at_level(1).fingerprint == qs.fingerprint
    declared = load_question_set(write(tmp_path / "l.yaml", "relevance_level: 2\n" + GRADED))
    assert declared.questions[0].expected_document_ids == ("install-linux",)
    # A listed id without a grade takes the declared level: it stays expected.
    assert declared.questions[2].expected_document_ids == ("a", "b")


def test_compact_holds_judgments_from_the_first_graded_row() -> None:
    rng = random.Random(7)
    questions = seeded(50)
    for i in rng.sample(range(10, 50), 15):
        q = questions[i]
        judged = {doc: rng.randrange(-2, 4) for doc in (*q.expected_document_ids, "x", "y")}
        grades = tuple((doc, max(grade, 0)) for doc, grade in judged.items())
        expected = tuple(doc for doc, grade in grades if grade >= 1)
        questions[i] = GoldenQuestion(q.id, q.question, q.form, expected, None, None, grades)
    compact = CompactQuestions.of(questions)
    assert list(compact) == questions and compact.judged()
    assert label_fingerprint(compact) == label_fingerprint(questions)
    assert not CompactQuestions.of(seeded(20)).judged()


def test_the_schema_takes_judgments_and_refuses_what_the_loader_refuses() -> None:
    validator = jsonschema.Draft202012Validator(question_set_schema())
    document = yaml.safe_load(GRADED)
    validator.validate(document)
    document["questions"][0]["judgments"]["faq"] = 1.5
    assert not validator.is_valid(document)
    del document["questions"][0]["judgments"]
    assert not validator.is_valid(document)  # neither a list nor judgments
