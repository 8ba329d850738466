from __future__ import annotations

from dataclasses import replace

from retrieval_eval.regression.types import Verdict, VerdictKind
from retrieval_eval.report import RunReport
from retrieval_eval.report.markdown import render_markdown


def test_regression_summary_has_a_row_per_run_and_folded_flips(current_run, regression_verdict):
    other = replace(current_run, set_name="a|b")
    text = render_markdown(
        [RunReport(current_run, regression_verdict), RunReport(other, Verdict(VerdictKind.PASS))]
    )
    lines = text.splitlines()
    assert lines[0] == "### reval: ❌ 1 of 2 runs failed the gate (1 regression)"
    rows = [line for line in lines if line.startswith("| ")]
    assert len(rows) == 3  # header + two runs
    assert rows[1] == (
        "| faq | bm25 1.2 | 6 (1 errors) | 0.400 | 0.600 | -0.200 ❌ | +0.000 | 1.000 "
        "| 9.0 at 8 in flight | ❌ regression |"
    )
    assert rows[2].startswith("| a\\|b | bm25 1.2 |") and rows[2].endswith("| ✅ pass |")
    assert "<details><summary>faq × bm25 1.2: regression</summary>" in text
    assert "Flipped hit → miss (2):" in text
    assert "- `q2 @top-1: expected d5; now d2, d3, d4; was d5, d2`" in text
    assert "> 2 runs are incomplete" in text


def test_clean_pass_is_short(current_run):
    text = render_markdown([RunReport(current_run, Verdict(VerdictKind.PASS, "r-b"))])
    assert text.startswith("### reval: ✅ no regression in 1 runs")
    assert "<details>" not in text
