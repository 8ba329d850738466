"""GitHub Actions workflow commands (``--format github``): the verdict and the questions
that flipped as ``::error`` / ``::warning`` / ``::notice`` lines, which the runner turns
into annotations on the job and the pull request, for teams with workflows of their own.

One line per run for its verdict (an error when it fails the gate), one warning per
question that lost a hit (at most ``MAX_FLIPS``), and the run's other warnings as
notices. The data of each command is escaped as the runner expects (``%``, CR, LF; in
properties also ``:`` and ``,``), so no text of a question can end a command early or
forge another.
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.regression.unjudged import unjudged_line
from retrieval_eval.regression.verdict_records import FlipDirection, RunReport, VerdictKind
from retrieval_eval.report.model import question_text, run_title
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run.markdown import headline
from retrieval_eval.report.run.verdict_text import describe_flip

MAX_FLIPS = 50


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, title: str, message: str) -> str:
    return f"::{name} title={escape_property(title)}::{escape_data(message)}"


def render_github(reports: Sequence[RunReport], warnings: Sequence[str] = ()) -> str:
    lines: list[str] = []
    for report in reports:
        lines += _run_lines(report)
    lines += [command("warning", "reval", w) for w in warnings]
    lines.append("reval: " + headline(reports))
    return "\n".join(lines) + "\n"


def _run_lines(report: RunReport) -> list[str]:
    run, verdict = report.run, report.verdict
    title = run_title(run)
    rates = ", ".join(
        f"{name} {value:.3f}"
        for name, key in (("top-1", TOP1_HIT_RATE), ("top-3", TOP3_HIT_RATE))
        if (value := run.metrics.values.get(key)) is not None
    )
    rates = f"{rates or 'nothing scored'} over {plural(run.metrics.count, 'question')}"
    if verdict is None:
        return [command("notice", f"reval: {title}", f"not checked against a baseline; {rates}")]
    reasons = "; ".join(verdict.reasons or verdict.incomparable_parts)
    message = f"{verdict.kind.value}: {rates}" + (f"; {reasons}" if reasons else "")
    if verdict.variant_change:
        message += f"; variant changed: {verdict.variant_change}"
    kind = "error" if verdict.fails() else "notice"
    if verdict.kind is VerdictKind.NO_BASELINE:
        kind = "warning"
    lines = [command(kind, f"reval {verdict.kind.value}: {title}", message)]
    unjudged = unjudged_line(verdict, run.run_id)
    if unjudged:
        lines.append(command("warning" if verdict.fails() else "notice", f"reval: {title}",
                             unjudged))  # fmt: skip
    texts = {q.question_id: question_text(q.question_text) for q in run.questions}
    lost = [f for f in verdict.flips if f.direction is FlipDirection.HIT_TO_MISS]
    for flip in lost[:MAX_FLIPS]:
        detail = f"{describe_flip(flip)}; question: {texts.get(flip.question_id, '')}"
        lines.append(
            command("warning", f"reval: {flip.question_id} lost its top-{flip.k} hit", detail)
        )
    if len(lost) > MAX_FLIPS:
        more = plural(len(lost) - MAX_FLIPS, "more lost hit")
        lines.append(command("warning", f"reval: {title}", f"{more}: see the full report"))
    lines += [command("notice", f"reval: {title}", w) for w in verdict.warnings]
    return lines
