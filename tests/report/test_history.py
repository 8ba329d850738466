from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from retrieval_eval.records import RetrieverDescription, RunState
from retrieval_eval.report.history import (
    comparison_json,
    comparison_text,
    summaries_json,
    summaries_table,
)
from retrieval_eval.store.types import RunSummary


def summary(run_id: str, *, pinned: bool = False, errors: int = 0) -> RunSummary:
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return RunSummary(
        run_id,
        "faq",
        "sha256:x",
        "bm25",
        "1.2",
        "bm25:idx",
        RunState.COMPLETE,
        when,
        when,
        10,
        errors,
        0.5,
        None,
        pinned,
        {"branch": "main"},
    )


def test_listing_marks_pins_errors_and_unmeasured_rates():
    text = summaries_table([summary("r1", pinned=True), summary("r2", errors=2)])
    lines = text.splitlines()
    assert lines[0].split() == [
        "run",
        "started",
        "(UTC)",
        "set",
        "retriever",
        "state",
        "questions",
        "top-1",
        "top-3",
        "labels",
    ]
    assert lines[2].split() == [
        "r1",
        "*",
        "2026-01-02",
        "03:04:05",
        "faq",
        "bm25",
        "1.2",
        "complete",
        "10",
        "0.500",
        "-",
        "branch=main",
    ]
    assert "10 (2 err)" in lines[3]
    doc = summaries_json([summary("r1", pinned=True)])
    assert doc["runs"][0]["pinned"] is True and doc["runs"][0]["top3_hit_rate"] is None


def test_comparison_names_both_runs_and_the_differing_retrievers(current_run, regression_verdict):
    other = replace(current_run, run_id="r-other", retriever=RetrieverDescription("dense", "2"))
    text = comparison_text(current_run, other, regression_verdict)
    assert text.splitlines()[0] == "compare B r-other against A r-current"
    assert "retrievers differ: bm25 1.2 vs dense 2" in text
    assert "comparison: REGRESSION vs baseline r-baseline" in text
    doc = comparison_json(current_run, other, regression_verdict)
    assert doc["a"]["run_id"] == "r-current" and doc["b"]["retriever"]["identifier"] == "dense"
    assert doc["comparison"]["verdict"] == "regression"
