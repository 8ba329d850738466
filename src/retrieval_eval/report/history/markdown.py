"""``runs history`` as Markdown, fit for a pull-request comment: one table row per run,
then the flaky and the never-hit questions."""

from __future__ import annotations

from retrieval_eval.comparison.results import History
from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.report.plural import plural


def render_history_markdown(history: History) -> str:
    lines = [
        f"### reval: history of `{_cell(history.set_name)}` × `{_cell(history.retriever)}` "
        f"({plural(len(history.entries), 'run')})",
        "",
        "| started (UTC) | run | variant | labels | top-1 | top-3 | verdict |",
        "|---|---|---|---|--:|--:|---|",
    ]
    for e in history.entries:
        pin = " 📌" if e.pinned else ""
        labels = ", ".join(f"{k}={v}" for k, v in sorted(e.labels.items()))
        verdict = "not stored" if e.verdict is None else e.verdict.kind.value
        lines.append(
            f"| {e.started_at:%Y-%m-%d %H:%M} | `{_cell(e.run_id)}`{pin} | {_cell(e.variant)} "
            f"| {_cell(labels)} | {_interval(e.top1)} | {_interval(e.top3)} | {verdict} |"
        )
    measured = [e for e in history.entries if e.measures]
    if measured:
        lines += ["", "IR measures (each run's stored means):", ""]
        lines += [f"- `{_cell(e.run_id)}`: " + ", ".join(
                      f"{_cell(name)} " + ("–" if m.value is None else f"{m.value:.4f}")
                      for name, m in e.measures.items())
                  + (" (trec_eval's means)" if e.measure_convention == "trec_eval" else "")
                  for e in measured]  # fmt: skip
    if history.flaky:
        lines += ["", "Flaky questions (hit changed between consecutive runs):", ""]
        lines += [f"- `{_cell(f.question_id)}` top-{f.k}: {plural(f.flips, 'flip')}, "
                  f"hit in {f.hits} of {f.answered}" for f in history.flaky[:20]]  # fmt: skip
    if history.never_hit:
        shown = ", ".join(f"`{_cell(q)}`" for q in history.never_hit[:30])
        more = len(history.never_hit) - 30
        lines += ["", f"Never hit at top-{history.ks[-1]}: {shown}"
                      + (f" … {more} more" if more > 0 else "")]  # fmt: skip
    return "\n".join(lines).rstrip() + "\n"


def _interval(e: RateEstimate | None) -> str:
    if e is None:
        return "–"
    return f"{e.rate:.3f} [{e.low:.2f}, {e.high:.2f}]"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ").replace("`", "'")
