"""TREC qrels and topics: read with grades (negatives as 0), imported by the rules of
``questions.judged``, written with judgments when graded and as today's sets when not."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.questions import reval, write

from retrieval_eval.errors import QuestionSetError
from retrieval_eval.questions.judged import Judgment
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.questions.trec import (
    import_trec,
    import_trec_judgments,
    read_topics,
    read_trec_qrels,
)
from retrieval_eval.records.outcome import Form

REVAL = Path(sys.executable).parent / "reval"

QRELS = (
    "301 0 FBIS3-1 2\n"
    "301\t0\tFBIS3-2\t0\n"  # tabs work too
    "301 Q0 FBIS3-3 -2\n"  # spam: judged not relevant
    "301 0 FBIS3-1 2\n"  # the same judgment twice counts once
    "\n"
    "302 1 LA-7 1.0\n"  # an integral decimal is its integer
    "303 0 FT-9 0\n"  # judged, nothing relevant
    "304 0 FT-4 3\n"  # judged, but no text in the topics file: see the import tests
)
TOPICS = "\ufeff301\tinternational organized crime\r\n302\tpoliomyelitis\tand post-polio\n"
TOPICS += "303\thubble telescope\n305\tnever judged\n"


def qrels_file(tmp_path: Path, text: str = QRELS, name: str = "qrels.robust.txt") -> Path:
    return write(tmp_path / name, text)


def topics_file(tmp_path: Path, text: str = TOPICS, name: str = "topics.tsv") -> Path:
    return write(tmp_path / name, text)


def test_qrels_keep_grades_read_negatives_as_zero_and_ignore_the_iteration(
    tmp_path: Path,
) -> None:
    qrels = read_trec_qrels(qrels_file(tmp_path))
    grades = {topic: {doc: j.grade for doc, j in docs.items()} for topic, docs in qrels.items()}
    assert grades == {
        "301": {"FBIS3-1": 2, "FBIS3-2": 0, "FBIS3-3": 0},
        "302": {"LA-7": 1},
        "303": {"FT-9": 0},
        "304": {"FT-4": 3},
    }
    assert qrels["301"]["FBIS3-1"] == Judgment(2, 1)  # where it was first read
    gz = read_trec_qrels(write(tmp_path / "qrels.txt.gz", QRELS))
    assert gz == qrels


def test_bad_qrels_lines_are_each_named_by_file_and_line(tmp_path: Path) -> None:
    path = qrels_file(
        tmp_path,
        "301 0 d1 1\n301 0 d2\n301 0 d3 1 extra\n302 0 d4 high\n302 0 d5 0.5\n301 0 d1 0\n",
    )
    with pytest.raises(QuestionSetError) as caught:
        read_trec_qrels(path)
    assert caught.value.problems == [
        f"{path}:2: expected 4 columns (topic iteration document grade), got 3",
        f"{path}:3: expected 4 columns (topic iteration document grade), got 5",
        f"{path}:4: question '302': grade 'high' is not an integer",
        f"{path}:5: question '302': grade '0.5' is not an integer",
        f"{path}:6: question '301': document 'd1' judged 0 here and 1 at line 1",
    ]


def test_topics_are_read_from_tsv_or_beir_jsonl(tmp_path: Path) -> None:
    tsv = read_topics(topics_file(tmp_path))
    assert tsv == {
        "301": ("international organized crime", 1),  # BOM and CRLF dropped
        "302": ("poliomyelitis\tand post-polio", 2),  # text after the first tab, whole
        "303": ("hubble telescope", 3),
        "305": ("never judged", 4),
    }
    lines = [{"_id": 301, "text": "crime"}, {"id": "302", "text": "polio", "title": "x"}]
    jsonl = write(tmp_path / "queries.jsonl.gz", "".join(json.dumps(r) + "\n" for r in lines))
    assert read_topics(jsonl) == {"301": ("crime", 1), "302": ("polio", 2)}


def test_bad_topics_lines_are_named_by_file_and_line(tmp_path: Path) -> None:
    tsv = topics_file(tmp_path, '301\tcrime\n{"_id": "1", "text": "x"}\n\tno id\n301\tagain\n')
    with pytest.raises(QuestionSetError) as caught:
        read_topics(tsv)
    assert caught.value.problems == [
        f"{tsv}:2: expected 'id<TAB>text', found no tab; a JSONL topics file must be named .jsonl",
        f"{tsv}:3: empty topic id before the tab",
        f"{tsv}:4: question '301': topic given twice (first at line 1)",
    ]
    jsonl = write(
        tmp_path / "t.jsonl",
        '{"_id": "1", "text": "ok"}\n[1]\n{"text": "x"}\n{"_id": "2", "text": 3}\n{"_id": \n'
        + "[" * 100_000
        + "\n",
    )
    with pytest.raises(QuestionSetError) as caught:
        read_topics(jsonl)
    assert caught.value.problems == [
        f"{jsonl}:2: expected a JSON object, got list",
        f"{jsonl}:3: topic without an '_id' (or 'id')",
        f"{jsonl}:4: topic '2': 'text' must be a string",
        f"{jsonl}:5: invalid JSON: Expecting value (column 9)",
        f"{jsonl}:6: invalid JSON: nested too deeply to read",
    ]


def test_every_judged_topic_becomes_a_question_and_unjudged_topics_do_not(
    tmp_path: Path,
) -> None:
    qrels = qrels_file(tmp_path, QRELS.replace("304 0 FT-4 3\n", ""))
    judged = import_trec_judgments(qrels, topics_file(tmp_path))
    assert judged.name == "qrels.robust"
    assert [(q.id, dict(q.judgments)) for q in judged.questions] == [
        ("301", {"FBIS3-1": 2, "FBIS3-2": 0, "FBIS3-3": 0}),
        ("302", {"LA-7": 1}),
        ("303", {"FT-9": 0}),  # judged nothing relevant: a question all the same
    ]
    assert (judged.relevant, judged.not_relevant, judged.nothing_relevant) == (2, 3, 1)
    assert (judged.unjudged_topics, judged.grades, judged.graded) == (1, (0, 1, 2), True)
    qs = import_trec(qrels, topics_file(tmp_path), "robust")
    assert qs.name == "robust"
    assert [(q.id, q.form, q.expected_document_ids) for q in qs.questions] == [
        ("301", Form.UNLABELLED, ("FBIS3-1",)),
        ("302", Form.UNLABELLED, ("LA-7",)),
        ("303", Form.UNLABELLED, ()),  # expects no document
    ]
    skipped = import_trec_judgments(qrels, topics_file(tmp_path), skip_no_relevant=True)
    assert ([q.id for q in skipped.questions], skipped.skipped_no_relevant) == (["301", "302"], 1)
    strict = import_trec(qrels, topics_file(tmp_path), relevance_level=2)
    assert [q.expected_document_ids for q in strict.questions] == [("FBIS3-1",), (), ()]


def test_a_judged_topic_without_text_is_an_error(tmp_path: Path) -> None:
    qrels = qrels_file(tmp_path)
    with pytest.raises(QuestionSetError) as caught:
        import_trec(qrels, topics_file(tmp_path))
    assert caught.value.problems == [f"{qrels}: question '304': topic not in {tmp_path}/topics.tsv"]
    with pytest.raises(QuestionSetError, match=r"no topic of .* is judged"):
        import_trec(qrels_file(tmp_path, "\n\n"), topics_file(tmp_path))


def _cli_import(tmp_path: Path, out: Path, *extra: str) -> int:
    qrels = qrels_file(tmp_path, QRELS.replace("304 0 FT-4 3\n", ""))
    args = ["sets", "import-trec", str(qrels), "--topics", str(topics_file(tmp_path))]
    return reval(*args, "--out", str(out), *extra)


@pytest.mark.parametrize("name", ["set.yaml", "set.json", "set.jsonl.gz"])
def test_a_graded_import_writes_judgments_relevance_level_and_grades(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / name
    assert _cli_import(tmp_path, out, "--name", "robust") == 0
    assert capsys.readouterr().out == (
        f"imported 3 questions (2 relevant, 3 judged not relevant) from {tmp_path}/"
        f"qrels.robust.txt and {tmp_path}/topics.tsv into {out} as set 'robust'; 1 question "
        "with nothing relevant; 1 topic without judgments left out; graded 0/1/2; "
        "forms are UNLABELLED\n"
    )
    text = gzip.decompress(out.read_bytes()).decode() if name.endswith(".gz") else out.read_text()
    if name.endswith(".jsonl.gz"):
        header, *questions = [json.loads(line) for line in text.splitlines()]
    else:
        document = yaml.safe_load(text) if name.endswith(".yaml") else json.loads(text)
        questions = document.pop("questions")
        header = document
    assert {k: v for k, v in header.items() if k != "description"} == {
        "reval_question_set": 1,
        "name": "robust",
        "relevance_level": 1,
        "grade_scale": [0, 2],
    }
    assert questions == [
        {
            "id": "301",
            "question": "international organized crime",
            "form": "UNLABELLED",
            "judgments": {"FBIS3-1": 2, "FBIS3-2": 0, "FBIS3-3": 0},
        },
        {"id": "302", "question": "poliomyelitis\tand post-polio", "form": "UNLABELLED",
         "judgments": {"LA-7": 1}},
        {"id": "303", "question": "hubble telescope", "form": "UNLABELLED",
         "judgments": {"FT-9": 0}},
    ]  # fmt: skip


def test_a_binary_import_is_a_set_todays_loader_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = qrels_file(tmp_path, "301 0 d1 1\n301 0 d2 1\n303 0 d3 1\n")
    topics = topics_file(tmp_path)
    out = tmp_path / "binary.yaml"
    args = ["sets", "import-trec", str(qrels), "--topics", str(topics), "--out", str(out)]
    assert reval(*args) == 0
    assert "(3 relevant)" in capsys.readouterr().out
    assert "judgments" not in out.read_text() and "grade_scale" not in out.read_text()
    loaded = load_question_set(out)
    assert loaded.fingerprint == import_trec(qrels, topics).fingerprint
    assert [(q.id, q.expected_document_ids) for q in loaded.questions] == [
        ("301", ("d1", "d2")),
        ("303", ("d3",)),
    ]
    assert reval(*args) == 2
    assert f"--out {out} exists; pass --force to overwrite it" in capsys.readouterr().err
    assert reval(*args, "--force", "--rel-level", "2") == 0
    assert yaml.safe_load(out.read_text())["relevance_level"] == 2  # graded by its level
    assert reval(*args[:-1], str(tmp_path / "set.csv")) == 2
    assert "use a .yaml, .yml, .json or .jsonl file" in capsys.readouterr().err


def _installed(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REVAL), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _refused(done: subprocess.CompletedProcess[str], expected: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [f"reval: error: {expected}"], done.stderr


def test_hostile_files_are_one_line_errors_from_the_installed_command(tmp_path: Path) -> None:
    topics = topics_file(tmp_path)
    out = tmp_path / "out.yaml"
    binary = write(tmp_path / "binary.qrels", "")
    binary.write_bytes(b"301 0 d1 1\n\xff\xfe\x00garbage\n")
    _refused(
        _installed("sets", "import-trec", binary, "--topics", topics, "--out", out),
        f"{binary}: not UTF-8 text (byte 11)",
    )
    bomb = tmp_path / "bomb.qrels.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        for _ in range(10):
            f.write(b"9" * (1024 * 1024))  # one line of 10 MiB, over the 8 MiB line limit
    _refused(
        _installed("sets", "import-trec", bomb, "--topics", topics, "--out", out),
        f"{bomb}: cannot read: line 1 is longer than 8 MiB, the limit for one line",
    )
    fake = write(tmp_path / "fake.qrels.gz", "")
    fake.write_bytes(b"not gzip at all")
    done = _installed("sets", "import-trec", fake, "--topics", topics, "--out", out)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"reval: error: {fake}: cannot read: not a valid gzip file")
    nested = write(tmp_path / "nested.jsonl", '{"_id": "301", "text": ' + "[" * 200_000 + "\n")
    _refused(
        _installed("sets", "import-trec", qrels_file(tmp_path), "--topics", nested, "--out", out),
        f"{nested}:1: invalid JSON: nested too deeply to read",
    )
    huge = write(tmp_path / "huge.jsonl", '{"_id": ' + "1" * 5000 + ', "text": "x"}\n')
    done = _installed("sets", "import-trec", qrels_file(tmp_path), "--topics", huge, "--out", out)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"reval: error: {huge}:1: invalid JSON: ")
    assert not out.exists()
