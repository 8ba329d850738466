"""Document digests in the set format: one definition, provenance only (an old set and the
same set with digests fingerprint exactly as before, in every format), malformed digests
refused naming the question, and imports given a corpus record them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from support.questions import reval, write

from questions.test_judgments import BEFORE
from retrieval_eval.corpus.digest import document_digest, is_digest
from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.digests_file import read_set_digests
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.schema import question_set_schema


def test_the_digest_is_sha256_of_the_title_and_text_as_a_json_pair() -> None:
    title, text = 'Caf\u00e9 "menu"', "line one\r\nline two\\"
    canonical = '["Caf\u00e9 \\"menu\\"", "line one\\r\\nline two\\\\"]'.encode()
    assert document_digest(title, text) == "sha256:" + hashlib.sha256(canonical).hexdigest()
    assert document_digest("", "x") != document_digest("x", "")  # no separator ambiguity
    assert document_digest("A", "b ") != document_digest("A", "b")  # no normalisation
    assert is_digest(document_digest("A", "b"))
    assert not is_digest("sha256:ABC") and not is_digest("md5:" + "0" * 64) and not is_digest(1)


def with_digests(questions: list[dict]) -> list[dict]:
    for q in questions:
        docs = [*q.get("expected_document_ids", []), *q.get("judgments", {})]
        q["document_digests"] = {d: document_digest(d, "text of " + d) for d in docs}
    return questions


@pytest.mark.parametrize("relative", sorted(BEFORE))
@pytest.mark.parametrize("suffix", [".yaml", ".json", ".jsonl"])
def test_an_old_set_with_digests_fingerprints_exactly_as_before(
    repo_root: Path, tmp_path: Path, relative: str, suffix: str
) -> None:
    old = repo_root / relative
    assert load_question_set(old).fingerprint == BEFORE[relative]
    if old.suffix == ".jsonl":
        lines = [json.loads(line) for line in old.read_text().splitlines() if line.strip()]
        header = lines.pop(0) if "reval_question_set" in lines[0] else {}
        questions = with_digests(lines)
    else:
        header = yaml.safe_load(old.read_text())
        questions = with_digests(header.pop("questions"))
    path = tmp_path / (old.name.split(".")[0] + suffix)
    if suffix == ".jsonl":
        rows = [header, *questions] if header else questions
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif suffix == ".json":
        path.write_text(json.dumps({**header, "questions": questions}))
    else:
        path.write_text(yaml.safe_dump({**header, "questions": questions}))
    loaded = load_question_set(path)
    assert loaded.fingerprint == BEFORE[relative]
    recorded = read_set_digests(path)
    assert recorded == {q["id"]: q["document_digests"] for q in questions if q["document_digests"]}
    schema = question_set_schema()
    if suffix != ".jsonl":
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[d1]", "'document_digests' must map document ids to digests"),
        ("{d1: sha256:abc}", "digest of 'd1' must be sha256:<64 hex digits>, got 'sha256:abc'"),
        ('{" ": "sha256:' + "0" * 64 + '"}', "'document_digests' has a key ' ' that is not a doc"),
    ],
)
@pytest.mark.parametrize("suffix", [".yaml", ".jsonl"])
def test_a_malformed_digest_is_refused_naming_the_question(
    tmp_path: Path, value: str, message: str, suffix: str
) -> None:
    question = yaml.safe_load(f"{{id: q7, question: Why, expected_document_ids: [d1], "
                              f"document_digests: {value}}}")  # fmt: skip
    path = tmp_path / f"bad{suffix}"
    if suffix == ".jsonl":
        path.write_text(json.dumps(question) + "\n")
    else:
        path.write_text(yaml.safe_dump({"questions": [question]}))
    with pytest.raises(QuestionSetError) as caught:
        load_question_set(path)
    assert f"question 'q7': {message}" in str(caught.value)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"questions": [question]}, question_set_schema())


def tiny_beir(tmp_path: Path, graded: bool) -> Path:
    root = tmp_path / "tiny"
    write(root / "queries.jsonl", '{"_id": "q1", "text": "scurvy"}\n{"_id": "q2", "text": "sun"}\n')
    grade = 2 if graded else 1
    write(root / "qrels" / "test.tsv", f"q1\td1\t{grade}\nq1\td9\t1\nq2\td2\t1\n")
    docs = {"d1": ("Scurvy", "Vitamin C."), "d2": ("Sun", "Vitamin D.")}
    write(root / "corpus.jsonl", "".join(
        json.dumps({"_id": d, "title": t, "text": x}) + "\n" for d, (t, x) in docs.items()
    ))  # fmt: skip
    return root


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("suffix", [".yaml", ".jsonl"])
def test_an_import_with_a_corpus_records_digests_and_keeps_the_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], graded: bool, suffix: str
) -> None:
    root = tiny_beir(tmp_path, graded)
    plain, digested = tmp_path / f"plain{suffix}", tmp_path / f"digested{suffix}"
    assert reval("sets", "import-beir", str(root), "--out", str(plain)) == 0
    capsys.readouterr()
    corpus = root / "corpus.jsonl"
    args = ["sets", "import-beir", str(root), "--out", str(digested), "--corpus", str(corpus)]
    assert reval(*args) == 0
    out = capsys.readouterr().out
    assert f"2 document digests recorded from {corpus}; 1 judgment on documents not in" in out
    assert load_question_set(digested).fingerprint == load_question_set(plain).fingerprint
    assert read_set_digests(digested) == {
        "q1": {"d1": document_digest("Scurvy", "Vitamin C.")},
        "q2": {"d2": document_digest("Sun", "Vitamin D.")},
    }
