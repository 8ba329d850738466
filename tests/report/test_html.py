"""The HTML run report on its own: what it names, what it links to, and its size."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html.parser import HTMLParser

from support.factory import make_run, question_set

from retrieval_eval.records.failures import RetrievalFailure
from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.run.html_view import render_html

EXTERNAL = re.compile(r"""(?:src|href|action)\s*=\s*["'](?!/|#|data:)""", re.IGNORECASE)


def test_report_names_the_verdict_errors_and_flips(current_run, regression_verdict):
    html = render_html([RunReport(current_run, regression_verdict)])
    assert 'data-verdict="regression"' in html
    assert "top-1 hit rate dropped by 0.200 (&gt; 0.100)" in html
    assert "set too small" in html
    assert html.count('<tr data-result="error"') == 1  # q6 timed out: an error, not a miss
    assert "timeout: timeout while answering q6" in html
    assert "flipped top-1, top-3" in html  # q2 lost at both k against the baseline
    assert not EXTERNAL.search(html)


def test_a_contract_breach_is_named(current_run):
    breach = RetrievalFailure("contract", "result 3 has an empty document id")
    questions = (*current_run.questions[:-1], replace(current_run.questions[-1], error=breach))
    html = render_html([RunReport(replace(current_run, questions=questions))])
    assert '<span class="breach">contract breach</span>' in html
    assert "1 contract breaches" in html


def test_untrusted_text_is_escaped(current_run):
    labels = {"note": "</script><script>alert(1)</script>"}
    html = render_html([RunReport(replace(current_run, labels=labels))])
    assert "<script>alert(1)" not in html


def test_a_1000_question_report_stays_well_under_a_megabyte():
    codes = ("1130" * 250)[:1000]
    run = make_run(codes, latency_ms=[float(i % 97) for i in range(1000)])
    size = len(render_html([RunReport(run)]).encode())
    assert size < 700_000, size


#: Strings that, unescaped inside a ``<script>`` element, end it or make it swallow the page.
HOSTILE = ["<!--<script>", "</script><b>x</b>", "a & b > c", "<!--", "]]>"]


class _Scripts(HTMLParser):
    """The text of every ``<script type="application/json">`` element, and the tags seen."""

    def __init__(self) -> None:
        super().__init__()
        self.json: list[str] = []
        self.tags: list[str] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._open = tag == "script" and ("type", "application/json") in attrs
        if self._open:
            self.json.append("")

    def handle_endtag(self, tag: str) -> None:
        self._open = False

    def handle_data(self, data: str) -> None:
        if self._open:
            self.json[-1] += data


def test_hostile_hard_classes_stay_inside_their_json():
    qs = question_set(10, classes=[*HOSTILE, *HOSTILE])
    html = render_html([RunReport(make_run("1130113011", qs=qs))])
    scripts = _Scripts()
    scripts.feed(html)
    assert scripts.json, "no embedded JSON"
    for text in scripts.json:
        assert "<" not in text and ">" not in text and "&" not in text
        json.loads(text)
    decoded = [json.dumps(json.loads(t), ensure_ascii=False) for t in scripts.json]
    for hostile in HOSTILE:  # the by-class chart's labels carry them, escaped
        assert any(hostile in text for text in decoded), hostile
    # the question table after the charts is still there: nothing was swallowed
    assert html.count('<tr data-result="') == 10 and "table" in scripts.tags


def _returned_cells(html: str) -> dict[str, str]:
    """Question id -> the HTML of its "returned" cell."""
    cells = re.findall(r'<span class="qid">(\w+)</span>.*?<td>.*?<td>.*?<td>.*?<td>(.*?)<td', html)
    return dict(cells)


def test_unjudged_documents_are_marked_apart_from_judged_ones_when_the_set_judges():
    run = make_run("1303")
    plain = _returned_cells(render_html([RunReport(run)]))
    assert 'class="unjudged"' not in "".join(plain.values())  # plain labels: nothing told apart
    judged = replace(run, judgments={"q1": (("d1", 1), ("x0", 0)), "q2": (("d2", 2),)})
    cells = _returned_cells(render_html([RunReport(judged)]))
    unjudged = {
        q: re.findall(r'<span class="unjudged"[^>]*>(\w+)</span>', c) for q, c in cells.items()
    }
    # the top 3 shown; q1: x0 judged not relevant, x1 never judged, d1 expected (bold)
    assert unjudged["q1"] == ["x1"] and "<b>d1</b>" in cells["q1"] and "x0" in cells["q1"]
    assert unjudged["q2"] == ["x0", "x1", "x2"]
    # q0 and q3 carry no judgments beyond their expected ids: the rest is unjudged
    assert unjudged["q0"] == ["x0", "x1"] and unjudged["q3"] == ["x0", "x1"]
