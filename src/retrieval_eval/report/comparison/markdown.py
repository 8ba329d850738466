"""``runs compare`` as Markdown, fit for a pull-request comment: one table row per run
(every run compared is shown), the disagreements folded below."""

from __future__ import annotations

from retrieval_eval.comparison.results import (
    Comparison,
    QuestionsShown,
    RunVersusReference,
)
from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.report.comparison.json_format import shown_questions
from retrieval_eval.report.judged_view import judged_table, share_text
from retrieval_eval.report.model import question_text
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run_names import names_of

_RATES = ((TOP1_HIT_RATE, 1, "top-1"), (TOP3_HIT_RATE, 3, "top-3"))


def render_comparison_markdown(
    comparison: Comparison, questions: QuestionsShown = QuestionsShown.DISAGREE
) -> str:
    c, s = comparison, comparison.settings
    names = [n.letter for n in names_of(c.runs)]
    lines = [
        f"### reval: {plural(len(c.runs), 'run')} of `{_cell(c.runs[0].set_name)}` "
        f"against `{_cell(c.reference_run_id)}`",
        "",
        "| | run | variant | top-1 | top-3 | Δ top-1 | Δ top-3 | p top-1 (Holm) "
        "| p top-3 (Holm) | RBO vs A | errors |",
        "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for i, run in enumerate(c.runs):
        versus = c.versus[i - 1] if i else None
        cells = [names[i] + (" (reference)" if i == 0 else ""), f"`{_cell(run.run_id)}`",
                 _cell(run.variant)]  # fmt: skip
        cells += [_rate(run.metrics.intervals.get(m)) for m, _, _ in _RATES]
        cells += [_delta(versus, m) for m, _, _ in _RATES]
        cells += [_p(versus, k) for _, k, _ in _RATES]
        mean_rbo = versus.overlap.mean_rbo if versus else None
        cells += ["" if mean_rbo is None else f"{mean_rbo:.3f}", str(run.errors)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Δ: {s.confidence:.0%} paired bootstrap interval ({s.bootstrap_resamples} resamples, "
        f"seed {s.bootstrap_seed}). p: exact McNemar against A, Holm's correction across "
        f"{plural(len(c.versus), 'run')} (**bold**: below {s.alpha:g}). RBO over the top "
        f"{s.overlap_k} distinct documents, persistence p = {s.rbo_p:g}.",
    ]
    lines += _measures(c, names)
    lines += _judged(c, names)
    for item in c.incomparable:
        lines += ["", f"> ⚠️ `{_cell(item.run_id)}` is incomparable and left out: "
                      + "; ".join(_cell(r) for r in item.reasons)]  # fmt: skip
    lines += _question_details(c, names, questions)
    return "\n".join(lines).rstrip() + "\n"


def _measures(c: Comparison, names: list[str]) -> list[str]:
    """The IR measures every run stored: each run's mean, Δ against A."""
    if not c.measure_names:
        return []
    lines = ["", f"IR measures ({c.runs[0].measure_convention} convention):", "",
             "| measure | " + " | ".join(names) + " |", "|---|" + "--:|" * len(names)]  # fmt: skip
    for name in c.measure_names:
        cells = [_mean(c.runs[0].measures[name].value)]
        for run, versus in zip(c.runs[1:], c.versus, strict=True):
            delta = next(d for d in versus.deltas if d.metric == name).delta
            shift = "" if delta is None else f" ({delta:+.4f})"
            cells.append(_mean(run.measures[name].value) + shift)
        lines.append(f"| {_cell(name)} | " + " | ".join(cells) + " |")
    return lines


def _judged(c: Comparison, names: list[str]) -> list[str]:
    """Each run's Judged@k overall and per group, when its set records judgments."""
    table = judged_table([run.judged for run in c.runs])
    if table is None:
        return []
    lines = ["", f"{table.name}, how much of each run's top {table.k} the set judged:", "",
             "| group | " + " | ".join(names) + " |", "|---|" + "--:|" * len(names)]  # fmt: skip
    for row in table.rows:
        lines.append(f"| {_cell(row.label)} | " + " | ".join(map(share_text, row.shares)) + " |")
    return [*lines, "", _cell(table.meaning)]


def _mean(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _question_details(c: Comparison, names: list[str], questions: QuestionsShown) -> list[str]:
    rows = shown_questions(c, questions)
    if not rows:
        return []
    lines = ["", f"<details><summary>{c.disagreements} of {len(c.questions)} questions "
                 "differ</summary>", "",
             "| question | expected | " + " | ".join(names) + " |",
             "|---|---|" + "---|" * len(names)]  # fmt: skip
    for row in rows:
        cells = [
            f"{cell.value} {_cell(' '.join(docs))}".strip()
            for cell, docs in zip(row.cells, row.top_documents, strict=True)
        ]
        expected = _cell(", ".join(row.expected_document_ids) or "(none)")
        asked = _cell(f"{row.question_id} “{question_text(row.question_text)}”")
        lines.append(f"| {asked} | {expected} | " + " | ".join(cells) + " |")
    return [*lines, "", "</details>"]


def _rate(estimate: RateEstimate | None) -> str:
    if estimate is None:
        return "–"
    return f"{estimate.rate:.3f} ({estimate.successes}/{estimate.count})"


def _delta(versus: RunVersusReference | None, metric: str) -> str:
    if versus is None:
        return ""
    d = next((d for d in versus.deltas if d.metric == metric), None)
    if d is None or d.delta is None:
        return "–"
    interval = "" if d.interval is None else f" [{d.interval.low:+.3f}, {d.interval.high:+.3f}]"
    return f"{d.delta:+.3f}{interval}"


def _p(versus: RunVersusReference | None, k: int) -> str:
    test = None if versus is None else next((t for t in versus.tests if t.k == k), None)
    if test is None:
        return ""
    text = f"{test.p_holm:.3f}"
    return f"**{text}**" if test.significant else text


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ").replace("`", "'")
