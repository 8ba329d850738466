"""The shipped example data keeps the properties the quickstart and the docs rely on."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from support.env import require

from retrieval_eval.example_data import EXAMPLE_SET_NAME, corpus_path, questions_path
from retrieval_eval.questions.loading import load_question_set
from retrieval_eval.quickstart import CHUNK_OVERLAP, CHUNK_WORDS
from retrieval_eval.records.outcome import Form

HARD_CLASSES = {"near-duplicate", "specific-vs-general", "prose-free", "boilerplate", "normal"}


def require_bm25() -> None:
    require(importlib.util.find_spec("reval_bm25") is not None, "the BM25 plugin is not installed")


def corpus() -> list[dict[str, str]]:
    lines = corpus_path().read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_the_set_covers_every_form_and_hard_class_with_multi_target_and_no_answer() -> None:
    question_set = load_question_set(questions_path())
    questions = question_set.questions
    assert question_set.name == EXAMPLE_SET_NAME
    assert 15 <= len(questions) <= 30
    assert {q.form for q in questions} == {Form.MATCH, Form.GAP}
    assert {q.hard_class for q in questions} == HARD_CLASSES
    assert any(len(q.expected_document_ids) > 1 for q in questions)
    assert any(q.expects_nothing for q in questions)
    assert all(q.answer_gist for q in questions)


def test_the_corpus_is_small_hand_written_and_labels_point_into_it() -> None:
    documents = corpus()
    ids = [d["_id"] for d in documents]
    assert 30 <= len(ids) <= 60
    assert len(set(ids)) == len(ids)
    assert all(d["title"] and d["text"] for d in documents)
    assert not any("#" in i for i in ids)  # '#' is the BM25 chunk separator
    expected = {e for q in load_question_set(questions_path()).questions
                for e in q.expected_document_ids}  # fmt: skip
    assert expected <= set(ids)


def test_reval_validates_the_set_against_the_corpus() -> None:
    reval = str(Path(sys.executable).parent / "reval")
    done = subprocess.run(
        [reval, "sets", "validate", str(questions_path()), "--corpus", str(corpus_path())],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_long_pages_become_several_chunks(tmp_path: Path) -> None:
    require_bm25()
    from reval_bm25.index import build_index

    info = build_index(
        corpus_path(), tmp_path / "index", chunk_words=CHUNK_WORDS, chunk_overlap=CHUNK_OVERLAP
    )
    assert info.documents == len(corpus())
    assert info.chunks > info.documents  # the duplicate collapse has work to do
