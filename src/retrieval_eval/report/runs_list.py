"""Views of the run history: the ``runs list`` table and the ``runs compare`` report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
from retrieval_eval.report.fit_table import Column, Drop, Shorten, Step, fitted_table
from retrieval_eval.report.plural import plural
from retrieval_eval.report.run.json_format import SCHEMA_VERSION
from retrieval_eval.report.run_names import NAME_LABEL
from retrieval_eval.report.safe_text import short, visible
from retrieval_eval.report.text_style import Style, string_console
from retrieval_eval.report.variant_names import (
    FULL_PROVENANCE,
    ShownVariant,
    legend_lines,
    name_variants,
)

if TYPE_CHECKING:  # the store package imports SQLAlchemy; reports only read summaries
    from retrieval_eval.store.summaries import RunSummary


def summaries_json(summaries: Sequence[RunSummary]) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "runs": [
            {
                "run_id": s.run_id,
                "set": s.set_name,
                "set_fingerprint": s.set_fingerprint,
                "retriever": {
                    "identifier": s.retriever_identifier,
                    "version": s.retriever_version,
                    "target": s.retriever_target,
                },
                "state": s.state.value,
                "started_at": s.started_at.isoformat(),
                "finished_at": s.finished_at.isoformat(),
                "questions": s.question_count,
                "errors": s.error_count,
                TOP1_HIT_RATE: s.top1_hit_rate,
                TOP3_HIT_RATE: s.top3_hit_rate,
                "pinned": s.pinned,
                "labels": dict(s.labels),
                "variant": s.variant,
                "verdict": s.verdict_kind or None,
                "baseline_run_id": s.baseline_run_id,
                # can be a baseline without a pin (``store.summaries.is_accepted``)
                "accepted": s.accepted,
            }
            for s in summaries
        ],
    }


#: The verdict cell of a run saved without a regression check: no baseline unless a
#: person accepts or pins it.
UNJUDGED = "unjudged"

#: The runs list's columns, and what gives way, in this order, on a narrow terminal:
#: the start time loses its year and seconds, then labels, question counts, state, the
#: start time and the set are left out. Run ids, variant names, rates and verdicts are
#: never broken; labels wrap at spaces.
RUNS_COLUMNS = (
    Column("run"),
    Column("started (UTC)"),
    Column("set"),
    Column("variant"),
    Column("state"),
    Column("verdict"),
    Column("questions", "right"),
    Column("top-1", "right"),
    Column("top-3", "right"),
    Column("labels", wrap=True),
)
RUNS_STEPS: tuple[Step, ...] = (
    Shorten("started (UTC)", lambda text: text[5:16], header="started"),
    Drop("labels"),
    Drop("questions"),
    Drop("state"),
    Drop("started"),
    Drop("set"),
)


def summaries_table(summaries: Sequence[RunSummary], *, width: int = 120) -> str:
    """The runs list for a terminal ``width`` columns wide (see ``RUNS_STEPS``), each
    variant by its short name, then what differs between the variants of one name."""
    console, buffer = string_console(width, color=False)
    names = name_variants(_shown(s) for s in reversed(summaries))
    rows = []
    for s in summaries:
        errors = f" ({plural(s.error_count, 'error')})" if s.error_count else ""
        rows.append([
            short(s.run_id) + (" *" if s.pinned else ""),
            f"{s.started_at:%Y-%m-%d %H:%M:%S}",
            short(s.set_name),
            names[_shown(s).key].name,
            s.state.value,
            s.verdict_kind or UNJUDGED,
            f"{s.question_count}{errors}",
            _rate(s.top1_hit_rate),
            _rate(s.top3_hit_rate),
            visible(", ".join(f"{k}={v}" for k, v in sorted(s.labels.items())
                              if k != NAME_LABEL)),
        ])  # fmt: skip
    console.print(fitted_table(Style(False), RUNS_COLUMNS, rows, width, RUNS_STEPS))
    text = "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())
    legend = legend_lines(list(dict.fromkeys(names.values())), width)
    if legend:
        text += "\nvariants (what differs; " + FULL_PROVENANCE + "):\n"
        text += "".join(line + "\n" for line in legend)
    return text


def _variant(s: RunSummary) -> str:
    return s.variant or f"{s.retriever_identifier} {s.retriever_version}".strip()


def _shown(s: RunSummary) -> ShownVariant:
    return ShownVariant(
        f"{s.lineage or s.retriever_target}|{_variant(s)}",
        _variant(s),
        s.retriever_identifier,
        s.retriever_target,
        s.labels,
    )


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
