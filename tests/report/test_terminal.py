from __future__ import annotations

import re

from support.factory import outcome, run_of

from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.run.text import ALL_QUESTIONS_UP_TO, render_text

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_plain_report_has_every_section_and_no_escape_codes(current_run, regression_verdict):
    text = render_text([RunReport(current_run, regression_verdict)], width=120)
    assert "\x1b[" not in text
    assert text.isascii() is False or "×" in text  # the title uses the multiplication sign
    assert "faq × bm25 1.2 — incomplete (1 error)" in text
    # aggregate rates with intervals and counts
    for name, rate, counts in (
        ("top1_hit_rate", "0.400", "2/5"),
        ("top3_hit_rate", "0.600", "3/5"),
    ):
        i = current_run.metrics.intervals[name]
        interval = re.escape(f"[{i.low:.3f}, {i.high:.3f}]")
        assert re.search(rf"{name}\s+{re.escape(rate)}\s+{interval}\s+{counts}", text)
    assert "no-answer questions: 2 · correctly empty 1 · returned something 1" in text
    # rank metrics leave the 2 no-answer questions out of the 5 answered: say so
    assert re.search(r"mrr@3\s+\d\.\d{3}\s+mean of 3\n", text)
    assert (
        "errors: 1 (rates are over the scored questions; a failed retrieval is not scored)" in text
    )
    assert "by form" in text and "by hard class" in text
    assert re.search(r"GAP\s+2\s+0\.000 \(0/2\)\s+0\.500 \(1/2\)\s+0", text)
    lat = current_run.latency
    percentiles = f"p50 {lat.p50_ms:.1f} · p95 {lat.p95_ms:.1f} · p99 {lat.p99_ms:.1f}"
    assert f"latency ms at 8 in flight: {percentiles}" in text
    # per-question: misses show their top distinct documents, errors their kind
    assert "expected d5; got d2, d3, d4" in text
    assert "ERROR timeout: timeout while answering q6" in text
    assert "was a hit at top-1, top-3" in text
    # verdict with deltas, flips and the paired test
    assert "regression verdict: REGRESSION vs baseline r-baseline" in text
    assert re.search(
        r"overall\s+top1_hit_rate\s+0\.800\s+0\.600\s+-0\.200\s+0\.100\s+REGRESSED", text
    )
    assert "flipped hit->miss: 2" in text and "flipped miss->hit: 1" in text
    assert "q2 @top-1: expected d5; now d2, d3, d4; was d5, d2" in text
    assert "McNemar top-3: 0 miss->hit, 1 hit->miss, 4 unchanged; p = 1.0000" in text
    assert "warning: set too small" in text


def test_color_report_has_styles_and_the_same_words(current_run, regression_verdict):
    reports = [RunReport(current_run, regression_verdict)]
    colored = render_text(reports, color=True, width=120)
    assert "\x1b[" in colored
    assert "REGRESSION" in ANSI.sub("", colored)
    assert "expected d5; got d2, d3, d4" in ANSI.sub("", colored)


def test_user_text_with_brackets_is_not_taken_for_markup():
    run = run_of([outcome("[bold]q", ["[d1]"], ["[x]"], hard_class="[red]c")])
    text = render_text([RunReport(run)], width=120)
    assert "[bold]q" in text and "expected [d1]; got [x]" in text and "[red]c" in text


def test_large_sets_list_only_misses_and_errors():
    n = ALL_QUESTIONS_UP_TO + 10
    outcomes = [outcome(f"q{i}", ["d1"], ["d1"]) for i in range(n)]
    outcomes[7] = outcome("q7", ["d1"], ["d2"])
    outcomes[9] = outcome("q9", ["d1"], error="unavailable")
    text = render_text([RunReport(run_of(outcomes))], width=120)
    assert "questions that missed or failed" in text
    listed = re.findall(r"^\s*(q\d+)\s", text, flags=re.M)
    assert listed == ["q7", "q9"]


def test_no_verdict_means_no_regression_section_and_warnings_are_printed(current_run):
    text = render_text([RunReport(current_run)], warnings=["run not saved: db down"])
    assert "regression verdict" not in text
    assert text.rstrip().endswith("warning: run not saved: db down")
