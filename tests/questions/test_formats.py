"""Set files of every format load to the same set; writing and reading round-trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support.questions import write

from retrieval_eval.questions.formats import write_question_set
from retrieval_eval.questions.loading import load_question_set, load_question_sets
from retrieval_eval.questions.model import GoldenQuestion, GoldenQuestionSet
from retrieval_eval.records.outcome import Form

QUESTIONS = [
    {
        "id": "q1",
        "question": "How do I reset my password?",
        "form": "match",
        "expected_document_ids": ["kb-12", "kb-40"],
        "hard_class": "near-duplicate",
        "answer_gist": "Settings > Security",
    },
    {
        "id": "q2",
        "question": "Why am I logged out?",
        "form": "Gap",
        "expected_document_ids": ["kb-7"],
    },
    {"id": "q3", "question": "Phone support?", "form": "GAP", "expected_document_ids": []},
    {"id": "q4", "question": "Unlabelled for now", "expected_document_ids": ["kb-1"]},
]
HEADER = {"name": "support", "description": "Support questions"}


def as_yaml() -> str:
    return yaml.safe_dump({**HEADER, "questions": QUESTIONS}, sort_keys=False)


def as_json() -> str:
    return json.dumps({**HEADER, "questions": QUESTIONS}, indent=2)


def as_jsonl() -> str:
    header = {"reval_question_set": 1, **HEADER}
    return "".join(json.dumps(r) + "\n" for r in [header, *QUESTIONS])


WRITERS = {"yaml": as_yaml, "yml": as_yaml, "json": as_json, "jsonl": as_jsonl}


@pytest.mark.parametrize("suffix", ["yaml", "yml", "json", "jsonl", "yaml.gz", "jsonl.gz"])
def test_every_format_loads_the_same_set(tmp_path: Path, suffix: str) -> None:
    path = write(tmp_path / f"support.{suffix}", WRITERS[suffix.split(".")[0]]())
    qs = load_question_set(path)
    assert qs.name == "support" and qs.description == "Support questions"
    assert qs.source == str(path)
    assert [q.id for q in qs.questions] == ["q1", "q2", "q3", "q4"]
    q1, q2, q3, q4 = qs.questions
    assert q1 == GoldenQuestion(
        "q1",
        "How do I reset my password?",
        Form.MATCH,
        ("kb-12", "kb-40"),
        "near-duplicate",
        "Settings > Security",
    )
    assert q2.form is Form.GAP and q2.hard_class is None and q2.answer_gist is None
    assert q3.expects_nothing and q3.form is Form.GAP
    assert q4.form is Form.UNLABELLED  # a missing form is never guessed


def test_the_fingerprint_does_not_depend_on_format_or_order(tmp_path: Path) -> None:
    prints = {
        load_question_set(write(tmp_path / f"s.{s}", WRITERS[s]())).fingerprint for s in WRITERS
    }
    assert len(prints) == 1
    shuffled = json.dumps({**HEADER, "questions": list(reversed(QUESTIONS))})
    assert load_question_set(write(tmp_path / "r.json", shuffled)).fingerprint in prints


def test_the_fingerprint_ignores_the_gist_but_not_the_labels(tmp_path: Path) -> None:
    def fingerprint(change: dict[str, object]) -> str:
        questions = [{**QUESTIONS[0], **change}, *QUESTIONS[1:]]
        return load_question_set(
            write(tmp_path / "f.json", json.dumps({"questions": questions}))
        ).fingerprint

    base = fingerprint({})
    assert fingerprint({"answer_gist": "something else"}) == base
    assert fingerprint({"expected_document_ids": ["kb-40", "kb-12"]}) == base
    for change in (
        {"form": "GAP"},
        {"hard_class": "normal"},
        {"expected_document_ids": ["kb-12"]},
        {"question": "How do I reset my password"},
    ):
        assert fingerprint(change) != base, change


def test_jsonl_without_header_and_yaml_bare_list_take_the_file_name(tmp_path: Path) -> None:
    jsonl = write(tmp_path / "faq.jsonl.gz", "".join(json.dumps(q) + "\n\n" for q in QUESTIONS))
    bare = write(tmp_path / "bare.yaml", yaml.safe_dump(QUESTIONS))
    assert load_question_set(jsonl).name == "faq"
    assert load_question_set(bare).name == "bare"
    assert len(load_question_set(jsonl)) == len(load_question_set(bare)) == 4


def test_yaml_is_loaded_safely(tmp_path: Path) -> None:
    text = "questions: !!python/object/apply:os.system ['echo pwned']\n"
    with pytest.raises(
        Exception, match=r"bad\.yaml:1: invalid YAML: .*could not determine a constructor"
    ):
        load_question_set(write(tmp_path / "bad.yaml", text))


@pytest.mark.parametrize("suffix", ["yaml", "json", "jsonl", "jsonl.gz"])
def test_written_sets_read_back_identically(tmp_path: Path, suffix: str) -> None:
    original = load_question_set(write(tmp_path / "in.json", as_json()))
    unicode_q = GoldenQuestion("ü-1", "Wie setze ich mein Passwort zurück?\nZeile 2", Form.GAP, ())
    qs = GoldenQuestionSet("support", (*original.questions, unicode_q), "Support questions")
    out = tmp_path / f"out.{suffix}"
    write_question_set(qs, out)
    again = load_question_set(out)
    assert again.questions == qs.questions
    assert (again.name, again.description, again.fingerprint) == (
        qs.name,
        qs.description,
        qs.fingerprint,
    )
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left


def test_a_directory_yields_one_set_per_set_file(tmp_path: Path) -> None:
    write(tmp_path / "b.jsonl", as_jsonl().replace('"support"', '"second"'))
    write(tmp_path / "a.yaml", as_yaml())
    write(tmp_path / "notes.txt", "not a set")
    write(tmp_path / ".hidden.yaml", "broken: [")
    write(tmp_path / "sub" / "c.yaml", "broken: [")  # not recursive
    sets = load_question_sets(tmp_path)
    assert [(s.name, Path(s.source).name) for s in sets] == [
        ("support", "a.yaml"),
        ("second", "b.jsonl"),
    ]
    with pytest.raises(Exception, match="holds 2 sets"):
        load_question_set(tmp_path)
    (tmp_path / "b.jsonl").unlink()
    assert load_question_set(tmp_path).name == "support"


def test_a_directory_is_all_or_nothing(tmp_path: Path) -> None:
    from retrieval_eval.errors import QuestionSetError

    write(tmp_path / "a.yaml", as_yaml())
    write(tmp_path / "b.json", as_json())  # same set name as a.yaml
    write(tmp_path / "c.jsonl", '{"id": "x", "question": ""}\n')
    with pytest.raises(QuestionSetError) as caught:
        load_question_sets(tmp_path)
    problems = caught.value.problems
    assert (
        f"{tmp_path / 'b.json'}: set name 'support' also used by {tmp_path / 'a.yaml'}" in problems
    )
    assert any(
        p.startswith(f"{tmp_path / 'c.jsonl'}:1: question 'x': empty 'question'") for p in problems
    )
    assert len(problems) == 3


def test_missing_paths_and_empty_directories_are_errors(tmp_path: Path) -> None:
    from retrieval_eval.errors import QuestionSetError

    with pytest.raises(QuestionSetError, match=r"nope\.yaml: no such file"):
        load_question_set(str(tmp_path / "nope.yaml"))
    with pytest.raises(QuestionSetError, match="no set files"):
        load_question_sets(tmp_path)
