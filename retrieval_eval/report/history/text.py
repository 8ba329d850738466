"""``runs history`` for people: one row per run (newest first), then the flaky and the
never-hit questions."""

from __future__ import annotations

from retrieval_eval.comparison.results import History
from retrieval_eval.records import RateEstimate
from retrieval_eval.report.plural import plural
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.text_style import Style, string_console

MAX_LISTED = 20


def render_history_text(history: History, *, color: bool = False, width: int = 120) -> str:
    console, buffer = string_console(width, color)
    style = Style(color)
    console.print(
        f"{style.heading('history')} of set {escape(history.set_name)} × "
        f"{escape(history.retriever)}: {plural(len(history.entries), 'run')}, newest first "
        "(n: questions; * pinned baseline)"
    )
    table = style.table(title=None)
    columns = ["started (UTC)", "run", "variant (labels)", "n", "top-1 [95%]", "top-3 [95%]",
               "verdict"]  # fmt: skip
    for column in columns:
        right = column in ("n", "top-1 [95%]", "top-3 [95%]")
        table.add_column(
            column,
            justify="right" if right else "left",
            overflow="fold",
            no_wrap=column in ("started (UTC)", "run", "top-1 [95%]", "top-3 [95%]"),
            min_width=22 if column == "variant (labels)" else None,
        )
    variants = {e.variant_key for e in history.entries}
    older = [*history.entries[1:], None]
    for e, before in zip(history.entries, older, strict=True):
        changed = before is not None and before.variant_key != e.variant_key
        errors = f" ({plural(e.errors, 'error')})" if e.errors else ""
        verdict = ["not stored" if e.verdict is None else e.verdict.kind.value]
        if e.verdict is not None and e.verdict.baseline_run_id:
            verdict.append(f"vs {e.verdict.baseline_run_id}")
        if e.verdict is not None and e.verdict.variant_change:
            verdict.append(f"before/after: {e.verdict.variant_change}")
        if e.acceptance is not None:
            verdict.append(f"accepted by {e.acceptance.by}: {e.acceptance.reason}")
        labels = ", ".join(f"{k}={v}" for k, v in sorted(e.labels.items()))
        table.add_row(
            f"{e.started_at:%Y-%m-%d %H:%M}",
            escape(e.run_id) + (" *" if e.pinned else ""),
            escape(
                ("variant changed: " if changed else "")
                + e.variant
                + (f"\n({labels})" if labels else "")
            ),
            f"{e.question_count}{errors}",
            _interval(e.top1),
            _interval(e.top3),
            "\n".join(map(escape, verdict)),
        )
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
