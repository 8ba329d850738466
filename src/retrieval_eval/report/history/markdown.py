"""``runs history`` as Markdown, fit for a pull-request comment: one table row per run,
then the flaky and the never-hit questions."""

from __future__ import annotations

from retrieval_eval.comparison.results import History, HistoryEntry
from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.report.plural import plural


def render_history_markdown(history: History) -> str:
    versions = len(history.label_versions) > 1
    on = "" if history.labels_shown == "all" else f", on label version `{history.labels_shown}`"
    lines = [
        f"### reval: history of `{_cell(history.set_name)}` × `{_cell(history.retriever)}` "
        f"({plural(len(history.entries), 'run')}{on})",
        "",
        "| started (UTC) | run | variant |"
        + (" scored on |" if versions else "")
        + " labels | top-1 | top-3 | verdict |",
        "|---|---|---|" + ("---|" if versions else "") + "---|--:|--:|---|",
    ]
    for e in history.entries:
        pin = " 📌" if e.pinned else ""
        labels = ", ".join(f"{k}={v}" for k, v in sorted(e.labels.items()))
        scored_on = f" {_scored_on(e)} |" if versions else ""
        lines.append(
            f"| {e.started_at:%Y-%m-%d %H:%M} | `{_cell(e.run_id)}`{pin} | {_cell(e.variant)} "
            f"|{scored_on} {_cell(labels)} | {_interval(e.top1)} | {_interval(e.top3)} "
            f"| {e.verdict_shown()} |"
        )
    if versions:
        lines += _side_by_side(history)
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


def _side_by_side(history: History) -> list[str]:
    """The label versions, then each ranking on each (a run beside its rescores)."""
    names = [v.name for v in history.label_versions]
    lines = ["", f"The labels changed {plural(len(names) - 1, 'time')} over these runs; "
             "label versions, oldest first: " + ", ".join(
                 f"`{v.name}` ({plural(v.runs, 'run')}" + (f", {v.rescored} rescored)"
                                                          if v.rescored else ")")
                 for v in history.label_versions), "",
             "Side by side (each ranking on each label version: top-1 / top-3, verdict):", "",
             "| run | " + " | ".join(f"on `{n}`" for n in names) + " |",
             "|---|" + "---|" * len(names)]  # fmt: skip
    for row in history.side_by_side:
        cells = []
        for name in names:
            e = row.by_version.get(name)
            cells.append(
                "–" if e is None else f"{_rate(e.top1)} / {_rate(e.top3)} {e.verdict_shown()}"
            )
        lines.append(f"| `{_cell(row.source_run_id)}` | " + " | ".join(cells) + " |")
    return lines


def _scored_on(e: HistoryEntry) -> str:
    rescored = f" (rescored from `{_cell(e.rescored_from)}`)" if e.rescored_from else ""
    return f"`{e.label_version}`{rescored}"


def _rate(e: RateEstimate | None) -> str:
    return "–" if e is None else f"{e.rate:.3f}"


def _interval(e: RateEstimate | None) -> str:
    if e is None:
        return "–"
    return f"{e.rate:.3f} [{e.low:.2f}, {e.high:.2f}]"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ").replace("`", "'")
