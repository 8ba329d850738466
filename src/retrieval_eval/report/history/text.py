"""``runs history`` for people: one row per run (newest first), then the flaky and the
never-hit questions."""

from __future__ import annotations

import re

from retrieval_eval.comparison.results import History
from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.report.fit_table import Column, Drop, Shorten, Step, fitted_table
from retrieval_eval.report.plural import plural
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.safe_text import short, visible
from retrieval_eval.report.text_style import Style, string_console

MAX_LISTED = 20

#: The history's columns, and what gives way, in this order, on a narrow terminal: the
#: start time loses its year, labels are left out, the rates lose their intervals, the
#: verdict loses its baseline id, then the question counts are left out. Run ids and rates
#: are never broken; the variant, labels and verdict (with a variant change or an
#: acceptance under it) wrap at spaces.
HISTORY_COLUMNS = (
    Column("started (UTC)"),
    Column("run"),
    Column("variant", wrap=True),
    Column("labels", wrap=True),
    Column("n", "right"),
    Column("top-1 [95%]", "right"),
    Column("top-3 [95%]", "right"),
    Column("verdict", wrap=True),
)
HISTORY_STEPS: tuple[Step, ...] = (
    Shorten("started (UTC)", lambda text: text[5:], header="started"),
    Drop("labels"),
    Shorten("top-1 [95%]", lambda text: text.split(" [")[0], header="top-1"),
    Shorten("top-3 [95%]", lambda text: text.split(" [")[0], header="top-3"),
    Shorten("verdict", lambda text: re.sub(r" vs \S+", "", text, count=1)),
    Drop("n"),
)


def render_history_text(history: History, *, color: bool = False, width: int = 120) -> str:
    console, buffer = string_console(width, color)
    style = Style(color)
    console.print(
        f"{style.heading('history')} of set {escape(history.set_name)} × "
        f"{escape(history.retriever)}: {plural(len(history.entries), 'run')}, newest first "
        "(n: questions; * pinned baseline)"
    )
    rows = []
    variants = {e.variant_key for e in history.entries}
    older = [*history.entries[1:], None]
    for e, before in zip(history.entries, older, strict=True):
        changed = before is not None and before.variant_key != e.variant_key
        errors = f" ({plural(e.errors, 'error')})" if e.errors else ""
        verdict = ["not stored" if e.verdict is None else e.verdict.kind.value]
        if e.verdict is not None and e.verdict.baseline_run_id:
            verdict[0] += f" vs {short(e.verdict.baseline_run_id)}"
        if e.verdict is not None and e.verdict.variant_change:
            verdict.append(f"before/after: {e.verdict.variant_change}")
        if e.acceptance is not None:
            verdict.append(f"accepted by {e.acceptance.by}: {e.acceptance.reason}")
        rows.append([
            f"{e.started_at:%Y-%m-%d %H:%M}",
            short(e.run_id) + (" *" if e.pinned else ""),
            visible(("variant changed: " if changed else "") + e.variant),
            visible(", ".join(f"{k}={v}" for k, v in sorted(e.labels.items()))),
            f"{e.question_count}{errors}",
            _interval(e.top1),
            _interval(e.top3),
            "\n".join(map(visible, verdict)),
        ])  # fmt: skip
    table = fitted_table(style, HISTORY_COLUMNS, rows, width, HISTORY_STEPS)
    console.print(table)
    if len(history.fingerprints) > 1:
        console.print(style.warn(f"the labels changed {len(history.fingerprints) - 1} times "
                                 "over these runs (different set fingerprints)"))  # fmt: skip
    console.print()
    if history.flaky:
        console.print(style.heading("flaky questions") + " (hit changed between consecutive "
                      "runs of the same variant)")  # fmt: skip
        for f in history.flaky[:MAX_LISTED]:
            within = f" (variant {escape(f.variant)})" if len(variants) > 1 else ""
            console.print(f"  {escape(f.question_id)} top-{f.k}: {plural(f.flips, 'flip')}, "
                          f"hit in {f.hits} of the {f.answered} runs that scored it"
                          f"{within}")  # fmt: skip
        if len(history.flaky) > MAX_LISTED:
            console.print(f"  ... {len(history.flaky) - MAX_LISTED} more (see --format json)")
    else:
        console.print("no flaky questions")
    k = history.ks[-1]
    if history.never_hit:
        where = (f" in the newest variant ({escape(history.never_hit_variant)})"
                 if history.never_hit_variant else "")  # fmt: skip
        console.print(style.heading(f"never hit at top-{k}") + f"{where}: {len(history.never_hit)}")
        console.print("  " + escape(", ".join(history.never_hit[: MAX_LISTED * 3])))
    else:
        console.print(f"every question was hit at top-{k} at least once")
    text = buffer.getvalue()
    return text if color else "".join(line.rstrip() + "\n" for line in text.splitlines())


def _interval(e: RateEstimate | None) -> str:
    if e is None:
        return "-"
    return f"{e.rate:.3f} [{e.low:.2f}-{e.high:.2f}]"
