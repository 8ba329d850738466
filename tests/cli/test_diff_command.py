"""``reval diff`` against two live gRPC retrievers on unlabelled questions."""

from __future__ import annotations

import json

import pytest
from support.cli import BAD, FAIL, GOOD, run_reval

from retrieval_eval.comparison.overlap import rbo


@pytest.fixture
def questions(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_text("# sampled from the logs\nquestion faq-1\n\nquestion faq-2\nquestion faq-3\n"
                    "question sup-1\n")  # fmt: skip
    return path


def test_diff_reports_overlap_and_the_questions_that_moved(questions, serve_table, invoke,
                                                          tmp_path):  # fmt: skip
    a, b = serve_table(GOOD, identifier="s"), serve_table(BAD, identifier="s")
    moved_file = tmp_path / "moved.txt"
    out = invoke("diff", "--questions", questions, "--retriever", a, "--retriever", b,
                 "--format", "json", "--top", "1", "--write-moved", moved_file)  # fmt: skip
    doc = json.loads(out.stdout)
    assert (doc["k"], doc["rbo_p"], doc["compared"], doc["failed"]) == (10, 0.9, 4, 0)
    by_id = {q["id"]: q for q in doc["questions"]}
    assert set(by_id) == {"line-2", "line-4", "line-5", "line-6"}
    assert by_id["line-2"]["top_a"] == ["d1", "d9"] and by_id["line-2"]["top_b"] == ["d9", "d1"]
    assert by_id["line-2"]["jaccard"] == 1.0
    assert by_id["line-2"]["rbo"] == pytest.approx(rbo(["d1", "d9"], ["d9", "d1"]))
    assert by_id["line-6"]["rbo"] == 1.0 and doc["identical"] == 2
    assert doc["questions"][0]["id"] == "line-4"  # d2 d7 vs d7 d6 d5 d2: moved most
    assert moved_file.read_text() == "question faq-2\n"
    assert sum(b["count"] for b in doc["distribution"]) == 4
    text = invoke("diff", "--questions", questions, "--retriever", a, "--retriever", b).output
    assert "mean RBO" in text and "persistence p = 0.9" in text and "moved most (2)" in text
    markdown = invoke("diff", "--questions", questions, "--retriever", a, "--retriever", b,
                      "--format", "markdown").stdout  # fmt: skip
    assert markdown.startswith("### reval diff:") and "| question faq-2 |" in markdown


def test_failures_are_reported_apart_and_usage_errors(questions, serve_table):
    a = serve_table(GOOD, identifier="s")
    b = serve_table({**GOOD, "question faq-3": FAIL}, identifier="s")
    result = run_reval("diff", "--questions", str(questions), "--retriever", a,
                       "--retriever", b, "--format", "json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["failed"] == 1 and doc["questions"][-1]["error_b"] == "internal"
    once = run_reval("diff", "--questions", str(questions), "--retriever", a)
    assert once.returncode == 2 and "exactly twice" in once.stderr


def test_an_unset_token_variable_is_a_usage_error(questions, serve_table):
    a, b = serve_table(GOOD, identifier="s"), serve_table(BAD, identifier="s")
    result = run_reval("diff", "--questions", str(questions), "--retriever", a,
                       "--retriever", b, "--token-env", "REVAL_NO_SUCH_TOKEN")  # fmt: skip
    assert result.returncode == 2
    assert "environment variable REVAL_NO_SUCH_TOKEN is not set" in result.stderr
