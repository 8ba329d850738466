"""BEIR import: every judged query becomes an UNLABELLED question, grades and zeros kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support.questions import reval, write

from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.beir import import_beir, import_beir_judgments
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.records.outcome import Form


def beir_dir(tmp_path: Path, gz: bool = False) -> Path:
    root = tmp_path / "tiny-beir"
    suffix = ".gz" if gz else ""
    queries = [
        {"_id": "q1", "text": "what causes scurvy", "metadata": {}},
        {"_id": "q2", "text": "rickets and sunlight"},
        {"_id": "q3", "text": "only judged irrelevant"},
        {"_id": 4, "text": "numeric id in the source"},
        {"_id": "q5", "text": "in train only"},
    ]
    write(root / f"queries.jsonl{suffix}", "".join(json.dumps(q) + "\n" for q in queries))
    qrels = "query-id\tcorpus-id\tscore\r\nq2\td2\t1\r\nq1\td1\t2\r\nq1\td9\t1\r\nq1\td1\t2\r\n"
    qrels += "q3\td3\t0\r\n4\td4\t1\r\n"
    write(root / "qrels" / f"test.tsv{suffix}", qrels)
    write(root / "qrels" / "train.tsv", "q5\td5\t1\n")  # no header is fine too
    return root


@pytest.mark.parametrize("gz", [False, True])
def test_judged_queries_become_questions_with_their_grades(tmp_path: Path, gz: bool) -> None:
    judged = import_beir_judgments(beir_dir(tmp_path, gz))
    assert judged.name == "tiny-beir-test"
    assert [(q.id, dict(q.judgments)) for q in judged.questions] == [
        ("q1", {"d1": 2, "d9": 1}),  # queries.jsonl order; qrels order; a repeat counts once
        ("q2", {"d2": 1}),
        ("q3", {"d3": 0}),  # judged only not relevant: kept, as BEIR's evaluation keeps it
        ("4", {"d4": 1}),
    ]
    assert (judged.graded, judged.grades, judged.nothing_relevant) == (True, (0, 1, 2), 1)
    qs = import_beir(beir_dir(tmp_path / "binary", gz))  # the expected documents, as scored
    assert [(q.id, q.expected_document_ids) for q in qs.questions] == [
        ("q1", ("d1", "d9")),
        ("q2", ("d2",)),
        ("q3", ()),
        ("4", ("d4",)),
    ]
    assert {q.form for q in qs.questions} == {Form.UNLABELLED}
    assert all(q.hard_class is None for q in qs.questions)
    assert "UNLABELLED" in qs.description
    skipped = import_beir(beir_dir(tmp_path / "skip", gz), skip_no_relevant=True)
    assert [q.id for q in skipped.questions] == ["q1", "q2", "4"]
    train = import_beir(beir_dir(tmp_path / "again", gz), "train", name="custom")
    assert (train.name, [q.id for q in train.questions]) == ("custom", ["q5"])


def test_bad_beir_input_names_the_file(tmp_path: Path) -> None:
    root = beir_dir(tmp_path)
    with pytest.raises(QuestionSetError, match=r"no qrels/dev\.tsv; splits available: test, train"):
        import_beir(root, "dev")
    with (root / "qrels" / "test.tsv").open("a") as f:
        f.write("q9\td9\t1\nq1\td1\nq1\td9\t3\nq2\td2\tmost\n")
    qrels = root / "qrels" / "test.tsv"
    with pytest.raises(QuestionSetError) as caught:
        import_beir(root)
    assert caught.value.problems == [
        f"{qrels}:9: expected 3 columns, got 2",
        f"{qrels}:10: question 'q1': document 'd9' judged 3 here and 1 at line 4",
        f"{qrels}:11: question 'q2': grade 'most' is not an integer",
    ]
    (root / "qrels" / "test.tsv").write_text("q9\td9\t1\n")
    with pytest.raises(QuestionSetError) as caught:
        import_beir(root)
    assert caught.value.problems == [
        f"{root / 'qrels' / 'test.tsv'}: question 'q9': topic not in {root / 'queries.jsonl'}"
    ]
    (root / "qrels" / "test.tsv").write_text("q2\td2\t1\n")
    (root / "queries.jsonl").write_text('{"_id": "q2", "text": "  "}\n')
    with pytest.raises(QuestionSetError) as caught:
        import_beir(root)
    assert caught.value.problems == [f"{root / 'queries.jsonl'}:1: question 'q2': empty topic text"]
    with pytest.raises(QuestionSetError, match=r"no queries\.jsonl"):
        import_beir(tmp_path)


def test_scifact_test_split(scifact_dir: Path, tmp_path: Path) -> None:
    qs = import_beir(scifact_dir, "test")
    assert len(qs) == 300
    assert sum(len(q.expected_document_ids) for q in qs.questions) == 339
    assert qs.name == "scifact-test"
    out = tmp_path / "scifact-test.jsonl.gz"
    assert reval("sets", "import-beir", str(scifact_dir), "--out", str(out)) == 0
    again = load_question_set(out)
    assert again.fingerprint == qs.fingerprint and again.questions == qs.questions


def test_cli_import_writes_a_loadable_set_and_refuses_to_overwrite(tmp_path: Path, capsys) -> None:
    root = beir_dir(tmp_path)
    (root / "qrels" / "test.tsv").write_text("q2\td2\t1\nq1\td1\t1\nq1\td9\t1\n4\td4\t1\n")
    out = tmp_path / "out" / "tiny.yaml"
    assert reval("sets", "import-beir", str(root), "--out", str(out), "--name", "tiny") == 0
    assert capsys.readouterr().out == (
        f"imported 3 questions (4 relevant) from {root} split test into {out} as set 'tiny'; "
        "2 topics without judgments left out; binary; forms are UNLABELLED\n"
    )
    assert load_question_set(out).fingerprint == import_beir(root).fingerprint
    assert reval("sets", "import-beir", str(root), "--out", str(out)) == 2
    assert f"--out {out} exists; pass --force to overwrite it" in capsys.readouterr().err
    assert reval("sets", "import-beir", str(root), "--out", str(out), "--force") == 0
    assert reval("sets", "import-beir", str(root), "--out", str(tmp_path / "x.csv")) == 2
    capsys.readouterr()
    assert (
        reval("sets", "import-beir", str(root), "--split", "dev", "--out", str(out), "--force") == 2
    )
    assert "no qrels/dev.tsv" in capsys.readouterr().err


def test_cli_import_of_graded_qrels_writes_their_judgments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = beir_dir(tmp_path)
    out = tmp_path / "graded.yaml"
    assert reval("sets", "import-beir", str(root), "--out", str(out), "--rel-level", "2") == 0
    assert capsys.readouterr().out == (
        f"imported 4 questions (1 relevant, 4 judged not relevant) from {root} split test "
        f"into {out} as set 'tiny-beir-test'; 3 questions with nothing relevant; 1 topic "
        "without judgments left out; graded 0/1/2; forms are UNLABELLED\n"
    )
    document = yaml.safe_load(out.read_text())
    assert (document["relevance_level"], document["grade_scale"]) == (2, [0, 2])
    assert [(q["id"], q["judgments"]) for q in document["questions"]] == [
        ("q1", {"d1": 2, "d9": 1}),
        ("q2", {"d2": 1}),
        ("q3", {"d3": 0}),
        ("4", {"d4": 1}),
    ]
    assert all("expected_document_ids" not in q for q in document["questions"])
