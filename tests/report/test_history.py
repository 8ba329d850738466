from __future__ import annotations

from datetime import UTC, datetime

from retrieval_eval.records.run import RunState
from retrieval_eval.report.runs_list import summaries_json, summaries_table
from retrieval_eval.store.summaries import RunSummary


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
        variant="bm25 1.2 · bm25:idx",
        verdict_kind="pass",
    )


def test_listing_marks_pins_errors_and_unmeasured_rates():
    text = summaries_table([summary("r1", pinned=True), summary("r2", errors=2)])
    lines = text.splitlines()
    assert lines[0].split() == [
        "run",
        "started",
        "(UTC)",
        "set",
        "variant",
        "state",
        "verdict",
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
        "bm25-A",
        "complete",
        "pass",
        "10",
        "0.500",
        "-",
        "branch=main",
    ]
    assert "10 (2 errors)" in lines[3]  # one variant, one line a run: no legend
    assert len(lines) == 4
    doc = summaries_json([summary("r1", pinned=True)])
    assert doc["runs"][0]["pinned"] is True and doc["runs"][0]["top3_hit_rate"] is None
    assert doc["runs"][0]["variant"] == "bm25 1.2 · bm25:idx"
    assert doc["runs"][0]["verdict"] == "pass"
