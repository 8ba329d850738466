"""A Markdown summary (``--format markdown``) fit for a pull-request comment.

A headline verdict, one table row per set × retriever (rates, deltas against the
baseline, p-value, p95 latency with the load it was measured under, verdict), each graded
run's Judged@k, then for each run that did not pass the reasons and the questions that
flipped, each folded in ``<details>`` so the comment stays short.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.unjudged import judge_command, judged_runs, unjudged_line
from retrieval_eval.regression.verdict_records import FlipDirection, RunReport, Verdict, VerdictKind
from retrieval_eval.report.baseline_notes import accept_command, report_notes
from retrieval_eval.report.judged_view import group_label, meaning, share_text, value_text
from retrieval_eval.report.model import latency_lines, question_text, retriever_label, run_title
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run.verdict_text import describe_flip
from retrieval_eval.report.safe_text import visible
from retrieval_eval.scoring.judged import judged_at_k, judged_rows

MAX_FLIPS = 30
_ICON = {
    VerdictKind.PASS: "✅ pass",
    VerdictKind.REGRESSION: "❌ regression",
    VerdictKind.INCOMPARABLE: "⚠️ incomparable",
    VerdictKind.NO_BASELINE: "➖ no baseline",
    VerdictKind.INCOMPLETE: "❌ incomplete",
}


def render_markdown(reports: Sequence[RunReport], warnings: Sequence[str] = ()) -> str:
    incomplete = [r for r in reports if not r.run.complete]
    lines = ["### reval: " + headline(reports), ""]
    if incomplete:
        lines += [
            f"> {plural(len(incomplete), 'run')} incomplete (retrieval errors); "
            "their rates are over the scored questions (a failed retrieval is not scored).",
            "",
        ]
    for r in incomplete:
        if r.run.not_asked_count:
            lines += [
                f"> {_cell(r.run.set_name)} × {_cell(r.run.retriever.identifier)}: stopped "
                f"asking after {r.run.error_count - r.run.not_asked_count} failed retrievals "
                f"(more than --max-errors); {r.run.not_asked_count} questions not asked.",
                "",
            ]
    lines += [
        "| set | retriever | questions | top-1 | top-3 | Δ top-1 | Δ top-3 | p (top-1) "
        "| p95 ms | verdict |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    lines += [_row(r) for r in reports]
    steps = [step for r in reports for step in next_steps(r)]
    if steps:
        lines += ["", "**Next:**", "", *(f"- {step}" for step in steps)]
    for report in reports:
        lines += _judged(report.run)
    for report in reports:
        if report.verdict is not None and report.verdict.kind is not VerdictKind.PASS:
            lines += ["", *_details(report, report.verdict)]
    lines += [""] + [f"> warning: {_cell(w)}" for w in warnings]
    return "\n".join(lines).rstrip() + "\n"


def next_steps(report: RunReport) -> list[str]:
    """What a reviewer does about a run that failed the gate, as the command to type: accept
    an intended drop, rerun once the retriever is fixed, or give the lineage a baseline."""
    verdict, run = report.verdict, report.run
    if verdict is None or not verdict.fails():
        return []
    title = _cell(run_title(run))
    if verdict.kind is VerdictKind.INCOMPLETE or not run.complete:
        return [f"{title}: fix the failed retrievals (listed below; never counted as misses), "
                "then rerun the job"]  # fmt: skip
    if verdict.unjudged is not None and verdict.unjudged.decided:
        command = judge_command(verdict.unjudged, judged_runs(verdict, run.run_id))
        return [f"{title}: every lost hit rests on unjudged documents: judge them (`{command}`), "
                "then `reval runs rescore BASELINE RUN --set SET`"]  # fmt: skip
    if verdict.missing_required_baseline:
        return [f"{title}: no baseline; accept a run of this lineage on the main branch, "
                "then commit it with `reval runs export-baseline RUN --out FILE`"]  # fmt: skip
    if run.run_id:
        return [f"{title}: if the change is intended, `{accept_command(run.run_id)}`; "
                "else fix it and push again"]  # fmt: skip
    return [f"{title}: if the change is intended, accept the main branch's run of it "
            "(`reval runs accept RUN --reason TEXT`); else fix it and push again"]  # fmt: skip


def headline(reports: Sequence[RunReport]) -> str:
    """✅ only when every run was judged and passed; a run not checked (or without a
    baseline) never reads as a pass."""
    failing = [r for r in reports if r.verdict is not None and r.verdict.fails()]
    passed = [r for r in reports if r.verdict is not None and r.verdict.kind is VerdictKind.PASS]
    n = len(reports)
    if failing:
        kinds = Counter(r.verdict.kind.value for r in failing if r.verdict is not None)
        which = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
        return f"❌ {len(failing)} of {plural(n, 'run')} failed the gate ({which})"
    if len(passed) == n:
        return f"✅ no regression in {plural(n, 'run')}"
    unchecked = n - len(passed)
    return (
        f"➖ no regression found; {unchecked} of {plural(n, 'run')} not checked against a baseline"
    )


def _row(report: RunReport) -> str:
    run, verdict = report.run, report.verdict
    m = run.metrics
    errors = f" ({plural(run.error_count, 'error')})" if run.error_count else ""
    cells = [
        _cell(run.set_name),
        _cell(retriever_label(run)),
        f"{len(run.questions)}{errors}",
        _rate(m.values.get(TOP1_HIT_RATE)),
        _rate(m.values.get(TOP3_HIT_RATE)),
        _delta(verdict, TOP1_HIT_RATE),
        _delta(verdict, TOP3_HIT_RATE),
        _p_value(verdict, 1),
        _p95(run),
        _verdict_cell(report),
    ]
    return "| " + " | ".join(cells) + " |"


def _verdict_cell(report: RunReport) -> str:
    """The verdict, with what changed beside it when the baseline is another variant."""
    verdict = report.verdict
    if verdict is None:
        return "not checked"
    cell = _ICON.get(verdict.kind, verdict.kind.value)
    extra = report_notes(report)
    return cell + "".join(f"<br>{_cell(line)}" for line in extra)


def _details(report: RunReport, verdict: Verdict) -> list[str]:
    lines = [
        f"<details><summary>{_cell(run_title(report.run))}: {verdict.kind.value}</summary>",
        "",
    ]
    if verdict.baseline_run_id:
        lines.append(f"Baseline run `{verdict.baseline_run_id}`.")
    lines += [f"- {_cell(reason)}" for reason in verdict.reasons]
    unjudged = unjudged_line(verdict, report.run.run_id)
    if unjudged:
        lines.append(f"- {_cell(unjudged)}")
    regressed = [d for d in verdict.deltas if d.regressed and d.group != "overall"]
    texts = {q.question_id: f"“{question_text(q.question_text)}”" for q in report.run.questions}
    lines += [
        f"- {_cell(d.group)} {d.metric}: {d.baseline:.3f} → {d.current:.3f}" for d in regressed
    ]
    for direction, title in (
        (FlipDirection.HIT_TO_MISS, "hit → miss"),
        (FlipDirection.MISS_TO_HIT, "miss → hit"),
    ):
        flips = [f for f in verdict.flips if f.direction == direction]
        if flips:
            lines += ["", f"Flipped {title} ({len(flips)}):", ""]
            lines += [f"- `{_code(describe_flip(f))}` {_cell(texts.get(f.question_id, ''))}"
                      for f in flips[:MAX_FLIPS]]  # fmt: skip
            if len(flips) > MAX_FLIPS:
                lines.append(f"- … {len(flips) - MAX_FLIPS} more")
    if verdict.warnings:
        lines += ["", "Warnings:", ""] + [f"- ⚠️ {_cell(w)}" for w in verdict.warnings]
    return [*lines, "", "</details>"]


def _judged(run: RunResult) -> list[str]:
    """Judged@k of a run whose set records judgments, folded: the overall figure in the
    summary, by form and by hard class inside."""
    judged = judged_at_k(run)
    if judged is None:
        return []
    lines = ["", f"<details><summary>{judged.name} of {_cell(run_title(run))}: "
                 f"{share_text(judged.overall)}</summary>", "",
             f"| group | {judged.name} | questions | unjudged |", "|---|--:|--:|--:|"]  # fmt: skip
    lines += [f"| {_cell(group_label(kind, name))} | {value_text(share)} | {share.count} "
              f"| {share.unjudged} |" for kind, name, share in judged_rows(judged)]  # fmt: skip
    return [*lines, "", _cell(meaning(judged.k)), "", "</details>"]


def _delta(verdict: Verdict | None, metric: str) -> str:
    if verdict is None:
        return ""
    for d in verdict.deltas:
        if d.group == "overall" and d.metric == metric:
            mark = " ❌" if d.regressed else ""
            return f"{d.delta:+.3f}{mark}"
    return ""


def _p_value(verdict: Verdict | None, k: int) -> str:
    for t in verdict.tests if verdict is not None else ():
        if t.k == k:
            return f"{t.p_value:.3f}"
    return ""


def _p95(run: RunResult) -> str:
    """Each p95 with its load: ``41.0 at 8 in flight; 12.5 unloaded (20 ...)``."""
    return "; ".join(f"{lat.p95_ms:.1f} {label}" for label, lat in latency_lines(run)) or "–"


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _cell(text: str) -> str:
    """Text that cannot break a table row or open HTML in a comment."""
    return visible(text.replace("\n", " ")).replace("|", "\\|").replace("<", "&lt;")


def _code(text: str) -> str:
    return visible(text).replace("`", "'")
