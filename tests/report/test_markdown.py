from __future__ import annotations

from dataclasses import replace

from retrieval_eval.regression.verdict_records import RunReport, Verdict, VerdictKind
from retrieval_eval.report.run.markdown import render_markdown


def test_regression_summary_has_a_row_per_run_and_folded_flips(current_run, regression_verdict):
    other = replace(current_run, set_name="a|b")
    text = render_markdown(
        [RunReport(current_run, regression_verdict), RunReport(other, Verdict(VerdictKind.PASS))]
    )
    lines = text.splitlines()
    assert lines[0] == "### reval: ❌ 1 of 2 runs failed the gate (1 regression)"
    rows = [line for line in lines if line.startswith("| ")]
    assert len(rows) == 3  # header + two runs
    p95 = current_run.latency.p95_ms
    assert rows[1] == (
        "| faq | bm25 1.2 | 6 (1 error) | 0.400 | 0.600 | -0.200 ❌ | +0.000 | 1.000 "
        f"| {p95:.1f} at 8 in flight | ❌ regression |"
    )
    assert rows[2].startswith("| a\\|b | bm25 1.2 |") and rows[2].endswith("| ✅ pass |")
    assert "<details><summary>faq × bm25 1.2: regression</summary>" in text
    assert "Flipped hit → miss (2):" in text
    assert "- `q2 @top-1: expected d5; now d2, d3, d4; was d5, d2`" in text
    assert "> 2 runs incomplete" in text


def test_clean_pass_is_short(current_run):
    text = render_markdown([RunReport(current_run, Verdict(VerdictKind.PASS, "r-b"))])
    assert text.startswith("### reval: ✅ no regression in 1 run")
    assert "<details>" not in text


def test_no_check_never_reads_as_a_pass(current_run):
    text = render_markdown([RunReport(current_run, Verdict(VerdictKind.PASS)),
                            RunReport(current_run, None)])  # fmt: skip
    assert text.startswith("### reval: ➖ no regression found; 1 of 2 runs not checked")
    assert "✅ pass" in text and text.count("✅") == 1 and "not checked |" in text


def test_both_flip_directions_and_warnings_outside_the_flips(current_run, regression_verdict):
    from retrieval_eval.regression.verdict_records import Flip

    gained = Flip("q9", 1, "miss->hit", ("d9",), ("d9",), ("d1",))
    verdict = replace(regression_verdict, flips=(*regression_verdict.flips, gained),
                      warnings=("set too small",))  # fmt: skip
    lines = render_markdown([RunReport(current_run, verdict)]).splitlines()
    assert "Flipped miss → hit (2):" in lines
    warning = lines.index("- ⚠️ set too small")
    assert lines[warning - 2 : warning] == ["Warnings:", ""]
    start = lines.index("Flipped miss → hit (2):")
    assert lines[start + 3].startswith("- `q9 @top-1")
