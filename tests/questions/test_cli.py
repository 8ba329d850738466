"""``reval sets``: exact output and exit codes, end to end through the real entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.questions import reval, write

SET = """\
name: demo
description: Demo set
questions:
  - id: a
    question: first?
    form: match
    expected_document_ids: [d1]
    hard_class: near-duplicate
  - id: b
    question: second?
    form: GAP
    expected_document_ids: []
  - id: c
    question: third?
    expected_document_ids: [d2, d3]
    hard_class: near-duplicate
"""


def test_list_shows_registered_sets(capsys) -> None:
    assert reval("sets", "list") == 0
    source = "reval-ir-example-provider, reval_example_provider:ExampleSets"
    assert capsys.readouterr().out == (
        "NAME            PROVIDER  QUESTIONS  SOURCE\n"
        f"example-faq     example   4          {source}\n"
        f"example-gaps    example   3          {source}\n"
        f"example-inline  example   3          {source}\n"
    )
    assert reval("sets", "list", "--format", "json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in listed["sets"]] == ["example-faq", "example-gaps", "example-inline"]
    assert listed["sets"][0]["fingerprint"].startswith("sha256:")
    assert listed["failed_providers"] == []


@pytest.mark.usefixtures("test_providers")
def test_list_reports_broken_providers_and_exits_2(capsys) -> None:
    assert reval("sets", "list") == 2
    out, err = capsys.readouterr()
    assert re.search(r"^twin-only +test-twin +1 +reval-test-set-providers, ", out, re.M)
    assert re.search(r"^bad-data +test-bad-data +error +reval-test-set-providers, ", out, re.M)
    assert err.startswith("reval: error: test-bad-data:bad-data: 2 problems in test-bad-data:")
    assert "'test-broken-list'" in err and "ConnectionError: label service unreachable" in err


def test_show_counts_forms_classes_and_no_answer_questions(tmp_path: Path, capsys) -> None:
    path = write(tmp_path / "demo.yaml", SET)
    assert reval("sets", "show", str(path)) == 0
    out = capsys.readouterr().out
    fingerprint = out.split("fingerprint:  ")[1].split("\n")[0]
    assert out == (
        "demo: 3 questions, 3 expected ids\n"
        "  description:  Demo set\n"
        f"  source:       {path}\n"
        f"  fingerprint:  {fingerprint}\n"
        "  by form:      MATCH 1, GAP 1, UNLABELLED 1\n"
        "  hard classes: near-duplicate 2, unclassified 1\n"
        "  no answer:    1 (b)\n"
    )
    assert reval("sets", "show", str(path), "--format", "json") == 0
    shown = json.loads(capsys.readouterr().out)["sets"][0]
    assert shown["fingerprint"] == fingerprint
    assert shown["by_form"] == {"MATCH": 1, "GAP": 1, "UNLABELLED": 1}
    assert shown["by_hard_class"] == {"near-duplicate": 2, "unclassified": 1}
    assert shown["no_answer"] == ["b"]
    assert shown["questions"] == 3 and shown["expected_document_ids"] == 3


def test_show_by_name_and_unknown_name(capsys) -> None:
    assert reval("sets", "show", "example-faq") == 0
    assert capsys.readouterr().out.startswith("example-faq: 4 questions, 4 expected ids\n")
    assert reval("sets", "show", "example-fa") == 2
    assert capsys.readouterr().err == (
        "reval: error: unknown question set 'example-fa'; "
        "did you mean 'example-faq', 'example-gaps'?\n"
    )


def test_validate_ok_and_every_problem_with_exit_2(tmp_path: Path, capsys) -> None:
    good = write(tmp_path / "good.yaml", SET)
    assert reval("sets", "validate", str(good)) == 0
    assert capsys.readouterr().out == f"{good}: ok: set 'demo', 3 questions\n"
    bad = write(
        tmp_path / "bad.jsonl", '{"id": "x", "question": "", "expected_document_ids": []}\n{'
    )
    assert reval("sets", "validate", str(good), str(bad)) == 2
    out, err = capsys.readouterr()
    assert out == (
        f"{good}: ok: set 'demo', 3 questions\n"
        f"{bad}:1: question 'x': empty 'question' text\n"
        f"{bad}:2: invalid JSON: Expecting property name enclosed in double quotes (column 2)\n"
    )
    assert err == "reval: error: 2 problems in 1 of 2 sets\n"


def test_validate_a_directory_and_a_missing_path(tmp_path: Path, capsys) -> None:
    write(tmp_path / "sets" / "a.yaml", SET)
    write(tmp_path / "sets" / "b.yaml", SET.replace("form: GAP", "form: gapp"))
    assert reval("sets", "validate", str(tmp_path / "sets"), str(tmp_path / "nope.yaml")) == 2
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{tmp_path / 'sets' / 'a.yaml'}: ok: set 'demo', 3 questions",
        f"{tmp_path / 'sets' / 'b.yaml'}:11: question 'b': unknown form 'gapp'; "
        "expected MATCH, GAP, UNLABELLED (any case); did you mean 'GAP'?",
        f"{tmp_path / 'nope.yaml'}: no such file",
    ]


@pytest.mark.parametrize("corpus_name", ["corpus.jsonl", "corpus.jsonl.gz"])
def test_validate_against_a_corpus_reports_stale_ids(tmp_path: Path, capsys, corpus_name) -> None:
    path = write(tmp_path / "demo.yaml", SET)
    docs = [{"_id": "d1", "text": "one"}, {"_id": "d3", "title": "", "text": "three"}]
    corpus = write(tmp_path / corpus_name, "".join(json.dumps(d) + "\n" for d in docs))
    assert reval("sets", "validate", str(path), "--corpus", str(corpus)) == 2
    assert capsys.readouterr().out == (
        f"{path}:15: question 'c': expected document 'd2' is not in the corpus {corpus}\n"
    )
    assert reval("sets", "validate", str(path), "--corpus", str(corpus), "--format", "json") == 2
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False
    assert report["sets"][0]["problems"] == [
        {
            "source": str(path),
            "line": 15,
            "question_id": "c",
            "position": None,
            "message": f"expected document 'd2' is not in the corpus {corpus}",
        }
    ]


def test_validate_a_registered_set_against_a_corpus(tmp_path: Path, capsys) -> None:
    corpus = write(tmp_path / "c.jsonl", '{"_id": "pricing"}\n{"_id": "billing-methods"}\n')
    assert reval("sets", "validate", "example-inline", "--corpus", str(corpus)) == 0
    assert reval("sets", "validate", "example-faq", "--corpus", str(corpus)) == 2
    out = capsys.readouterr().out
    assert "question 'faq-1': expected document 'account-password' is not in the corpus" in out


def test_a_malformed_corpus_is_bad_input(tmp_path: Path, capsys) -> None:
    path = write(tmp_path / "demo.yaml", SET)
    corpus = write(tmp_path / "c.jsonl", '{"_id": "d1"}\n{"text": "no id"}\n')
    assert reval("sets", "validate", str(path), "--corpus", str(corpus)) == 2
    assert capsys.readouterr().err == (
        f"reval: error: {corpus}:2: corpus document without a string '_id'\n"
    )


def test_validate_reports_unknown_names_with_the_other_results(tmp_path: Path, capsys) -> None:
    good = write(tmp_path / "good.yaml", SET)
    assert reval("sets", "validate", "example-fq", str(good), "example") == 2
    assert capsys.readouterr().out == (
        "example-fq: unknown question set 'example-fq'; did you mean 'example-faq'?\n"
        f"{good}: ok: set 'demo', 3 questions\n"
        "example-faq: ok: set 'example-faq', 4 questions\n"
        "example-gaps: ok: set 'example-gaps', 3 questions\n"
        "example-inline: ok: set 'example-inline', 3 questions\n"
    )
