"""A set held by column (``CompactQuestions``) must be the plain tuple of questions, question
by question, with the same fingerprint: stored runs name their set by it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.questions.compact import CompactQuestions
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.model import GoldenQuestion, label_fingerprint
from retrieval_eval.records.outcome import Form

FIELDS = [f.name for f in dataclasses.fields(GoldenQuestion)]

# Any text: accents, line separators, NUL, lone surrogates (an unpaired \udXXX escape).
texts = st.text(min_size=1, max_size=8) | st.sampled_from(["caf\u00e9", "\u2028", "a\ud800b"])
questions = st.builds(
    GoldenQuestion,
    id=texts | st.sampled_from(["q1", "q2", "q10"]),  # repeated ids: kept in row order
    question=texts,
    form=st.sampled_from(Form),
    expected_document_ids=st.lists(texts | st.sampled_from(["d1", "d2"]), max_size=3).map(tuple),
    hard_class=st.none() | st.sampled_from(["near-duplicate", "caf\u00e9"]) | texts,
    answer_gist=st.none() | texts,
)


def assert_same(compact: CompactQuestions, plain: list[GoldenQuestion]) -> None:
    assert len(compact) == len(plain)
    for i, want in enumerate(plain):
        got = compact[i]
        for name in FIELDS:
            a, b = getattr(got, name), getattr(want, name)
            assert a == b and type(a) is type(b), f"question {i}, field {name}: {a!r} != {b!r}"
    assert compact == plain and tuple(plain) == compact and list(compact) == plain


@settings(max_examples=80, deadline=None)
@given(st.lists(questions, max_size=12))
def test_any_questions_read_back_equal_with_the_same_fingerprint(
    plain: list[GoldenQuestion],
) -> None:
    compact = CompactQuestions.of(plain)
    assert_same(compact, plain)
    assert compact[1:-1] == tuple(plain[1:-1]) and compact[::-1] == tuple(plain[::-1])
    if plain:
        assert compact[-1] == plain[-1] and compact.id_of(len(plain) - 1) == plain[-1].id
    assert list(compact.by_id()) == sorted(range(len(plain)), key=lambda i: plain[i].id)
    first: dict[str, int] = {}
    naive = [(i, first.setdefault(q.id, i)) for i, q in enumerate(plain)]
    assert sorted(compact.duplicates()) == [(i, f) for i, f in naive if i != f]
    assert compact.holds("\x00") == any(
        "\x00" in t for q in plain for t in (q.id, q.question, q.hard_class or "",
                                             *q.expected_document_ids)
    )  # fmt: skip
    assert sorted(compact.answer_gists()) == sorted(
        q.answer_gist for q in plain if q.answer_gist is not None
    )
    try:
        expected = label_fingerprint(plain)
    except UnicodeEncodeError:  # a lone surrogate: neither can be hashed
        return
    assert label_fingerprint(compact) == expected


def plain_questions() -> list[GoldenQuestion]:
    classes = [None, "near-duplicate", "prose-free", "caf\u00e9"]
    forms = list(Form)
    return [
        GoldenQuestion(
            f"q{n}" if n % 11 else f"q{n}-\u00e9t\u00e9",
            f'question {n} "quoted" \\ \u2028?',
            forms[n % len(forms)],
            () if n % 5 == 0 else tuple(f"doc{(n + i) % 40}" for i in range(1 + n % 3)),
            classes[n % len(classes)],
            "a gist" if n % 4 == 0 else None,
        )
        for n in range(300)
    ]


def test_a_loaded_set_is_the_set_of_its_file_in_every_format(tmp_path: Path) -> None:
    """Read the files with json/yaml alone: the loaded set equals them question by
    question (empty labels, forms, hard classes, gists), and so does its fingerprint."""
    plain = plain_questions()
    records = []
    for q in plain:
        record = {"id": q.id, "question": q.question, "form": q.form.value,
                  "expected_document_ids": list(q.expected_document_ids)}  # fmt: skip
        if q.hard_class is not None:
            record["hard_class"] = q.hard_class
        if q.answer_gist is not None:
            record["answer_gist"] = q.answer_gist
        records.append(record)
    jsonl = tmp_path / "s.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    yml = tmp_path / "s.yaml"
    yml.write_text(yaml.safe_dump({"questions": records}, allow_unicode=True), encoding="utf-8")
    for path in (jsonl, yml):
        qs = load_question_set(path)
        assert isinstance(qs.questions, CompactQuestions)
        assert_same(qs.questions, plain)
        assert qs.fingerprint == label_fingerprint(tuple(plain))
        assert dataclasses.replace(qs, questions=tuple(plain)) == qs


def test_a_duplicate_id_in_a_valid_jsonl_set_names_both_lines(tmp_path: Path) -> None:
    lines = [json.dumps({"id": i, "question": "q?", "expected_document_ids": []})
             for i in ["b", "a", "c", "a", "b", "a"]]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from retrieval_eval.questions.reading import read_set_file
    from retrieval_eval.questions.validate import check_raw_set

    qs, found = check_raw_set(read_set_file(path))
    assert qs is None
    assert [str(p) for p in found] == [
        f"{path}:4: question 'a': duplicate question id (first at line 2)",
        f"{path}:5: question 'b': duplicate question id (first at line 1)",
        f"{path}:6: question 'a': duplicate question id (first at line 2)",
    ]
