"""Every format shows what was asked beside a question's id, and says so when a run was
stored before texts were kept."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from support.factory import make_run, question_set

from retrieval_eval.comparison.compare import compare_runs
from retrieval_eval.errors import InputError
from retrieval_eval.records.outcome import Form
from retrieval_eval.regression.verdict import judge
from retrieval_eval.regression.verdict_records import RunReport, Thresholds
from retrieval_eval.report.comparison.json_format import comparison_to_dict
from retrieval_eval.report.comparison.markdown import render_comparison_markdown
from retrieval_eval.report.comparison.text import render_comparison_text
from retrieval_eval.report.model import TEXT_NOT_STORED
from retrieval_eval.report.run.render import render

QS = question_set(6, forms=[Form.MATCH] * 6)


def judged() -> RunReport:
    baseline = make_run("111111", qs=QS, started=0, run_id="r-base")
    current = make_run("013011", qs=QS, started=1, run_id="r-now")
    return RunReport(current, judge(current, baseline, Thresholds(0.05, 0.05)))


def without_texts(run):
    return replace(run, questions=tuple(replace(q, question_text=None) for q in run.questions))


def test_text_report_lists_misses_with_their_text():
    text = render(judged(), "text", width=200)
    miss_line = next(line for line in text.splitlines() if line.startswith("q0 "))
    assert "“question number 0?”" in miss_line and "expected d0" in miss_line
    assert "“question number 3?”" in text
    failed = render(RunReport(make_run("1E", run_id="r-err")), "text", width=200)
    assert "“question number 1?”" in failed  # a failed retrieval too
    old = render(RunReport(without_texts(judged().run)), "text", width=200)
    assert TEXT_NOT_STORED in old and "question number" not in old


def test_json_carries_each_text_and_null_when_not_stored():
    questions = json.loads(render(judged(), "json"))["runs"][0]["questions"]
    assert [q["text"] for q in questions] == [f"question number {i}?" for i in range(6)]
    old = json.loads(render(RunReport(without_texts(judged().run)), "json"))
    assert {q["text"] for q in old["runs"][0]["questions"]} == {None}


def test_junit_failures_and_errors_say_what_was_asked():
    cases = {c.get("name"): c for c in ET.fromstring(render(judged(), "junit")).iter("testcase")}
    failure = cases["q0"].find("failure")
    assert failure.get("message").startswith("'question number 0?' flipped hit->miss at top-1")
    assert "question: question number 0?" in failure.text
    failed = render(RunReport(make_run("1E", run_id="r-err")), "junit")
    errors = {c.get("name"): c for c in ET.fromstring(failed).iter("testcase")}
    assert "question: question number 1?" in errors["q1"].find("error").text


def test_markdown_flips_carry_the_text():
    markdown = render(judged(), "markdown")
    flip_line = next(line for line in markdown.splitlines() if "q0" in line and "top-1" in line)
    assert "“question number 0?”" in flip_line


def test_comparison_formats_show_the_text_of_each_grid_row():
    a = make_run("111111", qs=QS, started=0, run_id="r-a")
    b = make_run("011111", qs=QS, started=1, run_id="r-b")
    comparison = compare_runs([a, b])
    assert "q0 “question number 0?”" in render_comparison_text(comparison, width=200)
    assert "q0 “question number 0?”" in render_comparison_markdown(comparison)
    rows = comparison_to_dict(comparison)["questions"]
    assert rows[0]["id"] == "q0" and rows[0]["text"] == "question number 0?"
    old = compare_runs([without_texts(a), without_texts(b)])
    assert f"q0 “{TEXT_NOT_STORED}”" in render_comparison_text(old, width=200)


def test_render_takes_runs_that_were_not_judged():
    run = make_run("10", run_id="r-plain")
    text = render([run], "text")
    assert "r-plain" in text and "question number 1?" in text
    assert json.loads(render(run, "json"))["runs"][0]["regression"] is None
    with pytest.raises(InputError, match="judge a run with judge"):
        render(["not a run"], "text")  # type: ignore[list-item]
