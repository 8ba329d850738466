from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

from support.factory import outcome, run_of

from retrieval_eval.regression.verdict_records import RunReport, Verdict, VerdictKind
from retrieval_eval.report.run.junit import VERDICT_CASE, render_junit


def _cases(suite: ET.Element) -> dict[str, ET.Element]:
    return {c.get("name"): c for c in suite.iter("testcase")}


def test_regression_fails_the_verdict_case_and_the_flipped_question(
    current_run, regression_verdict
):
    root = ET.fromstring(render_junit([RunReport(current_run, regression_verdict)]))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "faq × bm25 1.2"
    cases = _cases(suite)
    assert list(cases) == [VERDICT_CASE, "q1", "q2", "q3", "q4", "q5", "q6"]
    assert suite.get("tests") == "7"
    assert suite.get("failures") == "2" and suite.get("errors") == "1"
    assert root.get("failures") == "2" and root.get("tests") == "7"

    verdict_failure = cases[VERDICT_CASE].find("failure")
    assert verdict_failure.get("type") == "regression"
    assert "dropped by 0.200" in verdict_failure.get("message")
    assert "overall top1_hit_rate: 0.800 -> 0.600 (-0.200) REGRESSED" in verdict_failure.text

    flipped = cases["q2"].find("failure")
    assert flipped.get("message") == (
        "flipped hit->miss at top-1, top-3: expected d5; now d2, d3, d4; was d5, d2"
    )
    assert "ranking now: d2, d3, d4, d5" in flipped.text
    # q3 flipped the good way and q5 was a miss before: neither is a failure
    assert cases["q3"].find("failure") is None and cases["q5"].find("failure") is None
    error = cases["q6"].find("error")
    assert error.get("type") == "timeout" and "q6" in error.get("message")
    assert cases["q1"].find("system-out").text.startswith("top-1 hit, top-3 hit")
    assert float(cases["q1"].get("time")) == 0.005

    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["verdict"] == "regression" and props["baseline_run_id"] == "r-baseline"
    assert float(props["top1_hit_rate"]) == 0.4


def test_pass_no_baseline_and_incomparable(current_run):
    reports = [
        RunReport(current_run, Verdict(VerdictKind.PASS, "r-b", ("within thresholds",))),
        RunReport(replace(current_run, set_name="other"), Verdict(VerdictKind.NO_BASELINE)),
        RunReport(
            replace(current_run, set_name="third"),
            Verdict(
                VerdictKind.INCOMPARABLE,
                "r-c",
                ("labels changed",),
                incomparable_parts=("set_fingerprint",),
            ),
        ),
        RunReport(replace(current_run, set_name="fourth"), None),
    ]
    root = ET.fromstring(render_junit(reports))
    suites = root.findall("testsuite")
    assert len(suites) == 4
    verdicts = [_cases(s)[VERDICT_CASE] for s in suites]
    assert [len(list(v)) and v[0].tag for v in verdicts] == [
        "system-out",
        "skipped",
        "failure",
        "skipped",
    ]
    assert verdicts[2].find("failure").get("type") == "incomparable"
    assert "differs: set_fingerprint" in verdicts[2].find("failure").text
    assert root.get("tests") == str(4 * 7) and root.get("failures") == "1"
    assert root.get("skipped") == "2"


def test_control_characters_in_messages_still_give_valid_xml():
    run = run_of([outcome("q\x01", ["d1"], error="internal")])
    root = ET.fromstring(render_junit([RunReport(run)]))
    names = [c.get("name") for c in root.iter("testcase")]
    assert names == [VERDICT_CASE, "q\ufffd"]
