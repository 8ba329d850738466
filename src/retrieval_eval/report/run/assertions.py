"""What a failed quality assertion says: written for the person reading a red test.

``regression_failure`` and ``rate_failure`` return ``None`` when the check passes, else
the whole message: the run, its rates with intervals, the verdict's reasons, the
questions that flipped with both rankings (or the missed questions with their ranking),
and the errored questions, which are never counted as misses and so never let a check
pass on fewer answered questions than it seems.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_eval.metric_keys import KEY_FORMS, parse_metric_key
from retrieval_eval.records.metrics import GroupMetrics
from retrieval_eval.records.outcome import QuestionOutcome
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict_records import Verdict
from retrieval_eval.report.model import run_title
from retrieval_eval.report.run.verdict_text import render_verdict
from retrieval_eval.report.text_style import Style, string_console

MAX_LISTED = 10
SHOWN_DOCUMENTS = 3
_WIDTH = 120


def regression_failure(run: RunResult, verdict: Verdict | None) -> str | None:
    """Why ``run`` fails its regression check, or ``None`` (pass, or no baseline yet)."""
    if verdict is None:
        return _header(run, "was not judged (interrupted, or the run store failed)")
    if not verdict.fails():
        return None
    lines = [_header(run, f"verdict {verdict.kind.value.upper()}"), *_rates(run.metrics)]
    if run.error_count:
        lines += _errors(run.questions)
    console, buffer = string_console(_WIDTH, color=False)
    render_verdict(console, verdict, Style(color=False))
    lines.append(buffer.getvalue().rstrip())
    return "\n".join(lines)


def rate_failure(
    run: RunResult,
    metric: str,
    at_least: float,
    *,
    form: str | None = None,
    hard_class: str | None = None,
) -> str | None:
    """Why ``metric`` of ``run`` (overall, or in one form or hard class) is not at least
    ``at_least``, or ``None``. Errored questions in the group fail the check: a rate over
    fewer answered questions would pass for the wrong reason."""
    if form is not None and hard_class is not None:
        raise ValueError("give form or hard_class, not both")
    if parse_metric_key(metric) is None:
        return _header(run, f"{metric!r} is not a metric: {KEY_FORMS}")
    where, group = _group(run, form, hard_class)
    if group is None:
        return _header(run, f"has no questions {where}: {metric} cannot be checked")
    if metric not in group.values:
        known = ", ".join(sorted(group.values)) or "none"
        return _header(run, f"did not measure {metric} ({where}); measured: {known}")
    value = group.values[metric]
    questions = [q for q in run.questions if _in_group(q, form, hard_class)]
    errored = [q for q in questions if q.error is not None]
    if value >= at_least and not errored:
        return None
    lines = [_header(run, f"{metric} {where} is {_rate_text(group, metric)}")]
    if value < at_least:
        lines.append(f"required: at least {at_least:g}")
    if errored:
        lines.append(f"{len(errored)} errored questions are not counted, so the rate cannot pass")
        lines += _errors(errored)
    k = _k_of(metric)
    if k is not None:
        lines += _misses([q for q in questions if q.answered and not q.hits.get(k)], k)
    return "\n".join(lines)


def _header(run: RunResult, what: str) -> str:
    run_id = f" (run {run.run_id})" if run.run_id else " (not saved)"
    return f"{run_title(run)}{run_id} {what}"


def _group(
    run: RunResult, form: str | None, hard_class: str | None
) -> tuple[str, GroupMetrics | None]:
    if form is not None:
        return f"in form {form}", run.by_form.get(form)
    if hard_class is not None:
        return f"in hard class {hard_class}", run.by_hard_class.get(hard_class)
    return "overall", run.metrics


def _in_group(q: QuestionOutcome, form: str | None, hard_class: str | None) -> bool:
    if form is not None:
        return q.form.value == form
    if hard_class is not None:
        return q.hard_class == hard_class
    return True


def _rate_text(group: GroupMetrics, metric: str) -> str:
    interval = group.intervals.get(metric)
    if interval is None:
        return f"{group.values[metric]:.3f} (over {group.count} answered)"
    return (
        f"{interval.rate:.3f} [95% {interval.low:.3f}, {interval.high:.3f}] "
        f"({interval.successes}/{interval.count})"
    )


def _rates(group: GroupMetrics) -> list[str]:
    return [f"  {m}: {_rate_text(group, m)}" for m in sorted(group.intervals)]


def _k_of(metric: str) -> int | None:
    parsed = parse_metric_key(metric)
    return parsed.k if parsed is not None and parsed.is_hit_rate else None


def _misses(missed: list[QuestionOutcome], k: int) -> list[str]:
    if not missed:
        return []
    lines = [f"missed at top-{k} ({len(missed)}):"]
    for q in missed[:MAX_LISTED]:
        expected = ", ".join(q.expected_document_ids) or "(nothing)"
        got = ", ".join(q.ranked_document_ids[:SHOWN_DOCUMENTS]) or "(nothing)"
        asked = "" if q.question_text is None else f" {q.question_text!r}"
        lines.append(f"  {q.question_id}{asked}: expected {expected}; got {got}")
    if len(missed) > MAX_LISTED:
        lines.append(f"  ... {len(missed) - MAX_LISTED} more")
    return lines


def _errors(questions: Sequence[QuestionOutcome]) -> list[str]:
    errored = [q for q in questions if q.error is not None]
    if not errored:
        return []
    lines = [f"errored questions ({len(errored)}):"]
    for q in errored[:MAX_LISTED]:
        assert q.error is not None
        asked = "" if q.question_text is None else f" {q.question_text!r}"
        lines.append(f"  {q.question_id}{asked}: {q.error.kind}: {q.error.message}")
    if len(errored) > MAX_LISTED:
        lines.append(f"  ... {len(errored) - MAX_LISTED} more")
    return lines
