"""The ``reval`` section of pytest's terminal summary: one line per run the fixture made."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from retrieval_eval.pytest_plugin.failures import visible

if TYPE_CHECKING:
    from retrieval_eval.records.run import RunResult
    from retrieval_eval.regression.verdict_records import RunReport

#: The summary lines of the runs made in this session.
RUNS_KEY = pytest.StashKey[list[str]]()


def run_line(report: RunReport) -> str:
    """``faq × bm25: top1_hit_rate 0.750 top3_hit_rate 1.000, pass (run k3f9x2mq)``."""
    from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE

    run, verdict = report.run, report.verdict
    if _scored(run) == 0:  # rates of nothing are not 0.000
        rates = f"no scored question ({run.error_count} errors)"
    else:
        rates = " ".join(
            f"{k} {run.metrics.values.get(k, 0):.3f}" for k in (TOP1_HIT_RATE, TOP3_HIT_RATE)
        )
    kind = verdict.kind.value if verdict is not None else "not judged"
    saved = f"run {run.run_id}" if run.run_id else "not saved"
    return visible(f"{run.set_name} × {run.retriever.identifier}: {rates}, {kind} ({saved})")


def _scored(run: RunResult) -> int:
    return sum(1 for q in run.questions if q.error is None)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    runs = config.stash.get(RUNS_KEY, [])
    if runs:
        terminalreporter.section("reval")
        for line in runs:
            terminalreporter.line(line)
