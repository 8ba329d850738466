"""``runs history`` for people: one row per run (newest first), then the flaky and the
never-hit questions."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping

from rich.console import Console

from retrieval_eval.comparison.results import History, HistoryEntry
from retrieval_eval.records.metrics import RateEstimate
from retrieval_eval.report.fit_table import Column, Drop, Shorten, Step, fitted_table
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run_names import NAME_LABEL
from retrieval_eval.report.safe_text import markup_safe as escape
from retrieval_eval.report.safe_text import short, visible
from retrieval_eval.report.text_style import Style, string_console
from retrieval_eval.report.variant_names import (
    FULL_PROVENANCE,
    ShownVariant,
    VariantName,
    legend_lines,
    name_variants,
)

MAX_LISTED = 20

#: The history's columns, and what gives way, in this order, on a narrow terminal: the
#: start time loses its year, labels are left out, the rates lose their intervals, the
#: verdict loses its baseline id, then the question counts are left out. Run ids and rates
#: and variant names are never broken; labels and verdict (with a variant change or an
#: acceptance under it) wrap at spaces, never inside a word.
HISTORY_COLUMNS = (
    Column("started (UTC)"),
    Column("run"),
    Column("variant"),
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
#: With several label versions, beside the variant: the version a run was scored on.
SCORED_ON = Column("scored on", wrap=True)


def render_history_text(history: History, *, color: bool = False, width: int = 120) -> str:
    console, buffer = string_console(width, color)
    style = Style(color)
    on = "" if history.labels_shown == "all" else f" on label version {history.labels_shown}"
    console.print(
        f"{style.heading('history')} of set {escape(history.set_name)} × "
        f"{escape(history.retriever)}{escape(on)}: {plural(len(history.entries), 'run')}, "
        "newest first (n: questions; * pinned baseline)"
    )
    versions = len(history.label_versions) > 1
    rows = []
    variants = {e.variant_key for e in history.entries}
    names = name_variants(_shown(e) for e in reversed(history.entries))
    by_id = {e.run_id: e for e in history.entries}
    older = [*history.entries[1:], None]
    for e, before in zip(history.entries, older, strict=True):
        changed = before is not None and before.variant_key != e.variant_key
        errors = f" ({plural(e.errors, 'error')})" if e.errors else ""
        verdict = [e.verdict_shown()]
        if e.verdict is not None and e.verdict.baseline_run_id:
            verdict[0] += f" vs {short(e.verdict.baseline_run_id)}"
        if e.verdict is not None and e.verdict.variant_change:
            verdict.append(_before_after(e, names, by_id))
        if e.acceptance is not None:
            verdict.append(f"accepted by {e.acceptance.by}: {e.acceptance.reason}")
        rows.append([
            f"{e.started_at:%Y-%m-%d %H:%M}",
            short(e.run_id) + (" *" if e.pinned else ""),
            names[_key(e)].name + (" (new)" if changed else ""),
            *([_scored_on(e)] if versions else []),
            visible(", ".join(f"{k}={v}" for k, v in sorted(e.labels.items())
                              if k != NAME_LABEL)),
            f"{e.question_count}{errors}",
            _interval(e.top1),
            _interval(e.top3),
            "\n".join(map(visible, verdict)),
        ])  # fmt: skip
    columns = HISTORY_COLUMNS[:3] + ((SCORED_ON,) if versions else ()) + HISTORY_COLUMNS[3:]
    console.print(fitted_table(style, columns, rows, width, HISTORY_STEPS))
    legend = legend_lines(list(dict.fromkeys(names.values())), width)
    if legend:
        console.print()
        console.print(f"variants (what differs; (new): the variant changed; {FULL_PROVENANCE}):")
        for line in legend:
            console.print(escape(line), overflow="ignore", crop=False)
    _measures(console, history, names, style)
    if versions:
        _label_versions(console, history, names, style, width)
    console.print()
    by_label = {e.variant: names[_key(e)].name for e in reversed(history.entries)}
    if history.flaky:
        console.print(style.heading("flaky questions") + " (hit changed between consecutive "
                      "runs of the same variant)")  # fmt: skip
        for f in history.flaky[:MAX_LISTED]:
            within = f" (variant {escape(by_label[f.variant])})" if len(variants) > 1 else ""
            within += f" (labels {f.labels})" if f.labels else ""
            console.print(f"  {escape(f.question_id)} top-{f.k}: {plural(f.flips, 'flip')}, "
                          f"hit in {f.hits} of the {f.answered} runs that scored it"
                          f"{within}")  # fmt: skip
        if len(history.flaky) > MAX_LISTED:
            console.print(f"  ... {len(history.flaky) - MAX_LISTED} more (see --format json)")
    else:
        console.print("no flaky questions")
    k = history.ks[-1]
    if history.never_hit:
        newest = by_label.get(history.never_hit_variant, history.never_hit_variant)
        where = f" in the newest variant ({escape(newest)})" if newest else ""
        where += f" on labels {history.never_hit_labels}" if history.never_hit_labels else ""
        console.print(style.heading(f"never hit at top-{k}") + f"{where}: {len(history.never_hit)}")
        for line in textwrap.wrap(", ".join(history.never_hit[: MAX_LISTED * 3]), width,
                                  initial_indent="  ", subsequent_indent="  ",
                                  break_long_words=False, break_on_hyphens=False):  # fmt: skip
            console.print(escape(line), overflow="ignore", crop=False)
    else:
        console.print(f"every question was hit at top-{k} at least once")
    text = buffer.getvalue()
    return text if color else "".join(line.rstrip() + "\n" for line in text.splitlines())


def _measures(
    console: Console, history: History, names: Mapping[str, VariantName], style: Style
) -> None:
    """Each run's stored IR measures (newest first), one line a run that has any."""
    measured = [e for e in history.entries if e.measures]
    if not measured:
        return
    console.print()
    console.print(style.heading("IR measures") + " (each run's stored means)")
    for e in measured:
        values = " · ".join(
            f"{escape(name)} {'-' if m.value is None else f'{m.value:.4f}'}"
            for name, m in e.measures.items()
        )
        trec = " (trec_eval's means)" if e.measure_convention == "trec_eval" else ""
        console.print(f"  {short(e.run_id)} {escape(names[_key(e)].name)}: {values}{trec}",
                      overflow="fold")  # fmt: skip


def _label_versions(
    console: Console,
    history: History,
    names: Mapping[str, VariantName],
    style: Style,
    width: int,
) -> None:
    """The versions of the labels these runs were scored on, then each stored ranking on
    each version (a run beside its rescores), so old and new labels read side by side."""
    console.print()
    changes = plural(len(history.label_versions) - 1, "time")
    console.print(style.warn(f"the labels changed {changes} over these runs (different set "
                             "fingerprints): figures on different versions measure different "
                             "labels"))  # fmt: skip
    console.print(style.heading("label versions") + " (oldest first; --label-version "
                  "shows one):")  # fmt: skip
    for v in history.label_versions:
        rescored = f", {v.rescored} rescored" if v.rescored else ""
        console.print(f"  {v.name}  {escape(v.fingerprint)}: {plural(v.runs, 'run')}{rescored}",
                      overflow="fold")  # fmt: skip
    console.print()
    console.print(style.heading("side by side") + " (each ranking on each label version: "
                  "top-1 / top-3, stored verdict; - not scored on it)")  # fmt: skip
    shown = [v.name for v in history.label_versions]
    by_id = {e.run_id: e for e in history.entries}
    rows = []
    for row in history.side_by_side:
        cells = [_cell(row.by_version.get(name)) for name in shown]
        rows.append([short(row.source_run_id), names[_key(by_id[row.source_run_id])].name,
                     *cells])  # fmt: skip
    columns = (Column("run"), Column("variant"),
               *(Column(f"on {name}", wrap=True) for name in shown))  # fmt: skip
    console.print(fitted_table(style, columns, rows, width, ()))


def _scored_on(e: HistoryEntry) -> str:
    rescored = f" (rescored from {short(e.rescored_from)})" if e.rescored_from else ""
    return e.label_version + rescored


def _cell(e: HistoryEntry | None) -> str:
    if e is None:
        return "-"
    rates = " / ".join("-" if r is None else f"{r.rate:.3f}" for r in (e.top1, e.top3))
    return f"{rates} {e.verdict_shown()}"


def _before_after(
    e: HistoryEntry, names: Mapping[str, VariantName], by_id: Mapping[str, HistoryEntry]
) -> str:
    """A variant change by the variants' names when its baseline is shown (the legend says
    what differs), else in the verdict's own words."""
    assert e.verdict is not None
    baseline = by_id.get(e.verdict.baseline_run_id or "")
    if baseline is None:
        return f"before/after: {e.verdict.variant_change}"
    return f"before/after: {names[_key(baseline)].name} -> {names[_key(e)].name}"


def _key(e: HistoryEntry) -> str:
    return e.variant_key or e.variant


def _shown(e: HistoryEntry) -> ShownVariant:
    """History rows are of one retriever: the name is the identifier that opens the label."""
    identifier = e.variant.split(" ", 1)[0]
    return ShownVariant(_key(e), e.variant, identifier, "", e.labels)


def _interval(e: RateEstimate | None) -> str:
    if e is None:
        return "-"
    return f"{e.rate:.3f} [{e.low:.2f}-{e.high:.2f}]"
