"""The one line ``reval eval`` ends an incomplete run with: how many questions failed,
the first failure's kind and message, and why nothing could be judged."""

from __future__ import annotations

from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict_records import RunReport


def error_summary(run: RunResult) -> str:
    from retrieval_eval.report.plural import plural

    skipped = run.not_asked_count
    if not skipped:
        return plural(run.error_count, "error") + _first_error(run)
    asked = plural(run.error_count - skipped, "error")
    return (f"{asked}{_first_error(run)}, then {plural(skipped, 'question')} not asked; "
            "--keep-asking asks them")  # fmt: skip


#: Longest error message the one-line summary quotes (the report keeps it whole).
SHOWN_ERROR_CHARS = 200


def _first_error(run: RunResult) -> str:
    """Why, in the line itself: the first failure's kind and message, and how many of the
    questions failed the same way."""
    from retrieval_eval.records.failures import FailureKind
    from retrieval_eval.report.plural import plural
    from retrieval_eval.report.safe_text import short

    failures = [q.error for q in run.questions
                if q.error is not None and q.error.kind != FailureKind.NOT_ASKED]  # fmt: skip
    if not failures:
        return ""
    first = failures[0]
    alike = sum(f.kind == first.kind and f.message == first.message for f in failures)
    hit = plural(alike, "question")
    return (f"; first: {first.kind}: {short(first.message, SHOWN_ERROR_CHARS)} "
            f"(on {hit} of {len(run.questions)})")  # fmt: skip


def nothing_scored(report: RunReport) -> str:
    """A run can be incomplete within the error budget: when it scored nothing, or nothing
    in common with its baseline."""
    if report.run.metrics.count == 0:
        return ", no question scored"
    if report.run.error_count and report.verdict and report.verdict.baseline_run_id:
        return ", nothing scored in common with its baseline"
    return ""
