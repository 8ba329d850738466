"""``reval runs``: the stored history — list, show, compare, pin, unpin, prune, export,
export a baseline file."""

from __future__ import annotations

import json
from pathlib import Path

import click

from retrieval_eval.cli.lazy import Lazy, LazyGroup
from retrieval_eval.cli.options import (
    db_option,
    format_option,
    label_option,
    threshold_options,
    thresholds_or_defaults,
)
from retrieval_eval.cli.render import emit_report, terminal_width
from retrieval_eval.cli.runs.store import open_run_store
from retrieval_eval.errors import InputError
from retrieval_eval.regression.verdict_records import RunReport
from retrieval_eval.report.plural import plural


@click.group(
    "runs",
    cls=LazyGroup,
    lazy={
        "accept": Lazy(
            "retrieval_eval.cli.runs.accept:accept",
            "Accept RUN (complete; e.g. one judged regression) as the baseline of its set and "
            "retriever: the next run of the same retriever is judged against it, unless a run "
            "is pinned.",
        ),
        "compare": Lazy(
            "retrieval_eval.cli.runs.compare:compare",
            "Compare runs side by side; the first RUN is the reference.",
        ),
        "export-baseline": Lazy(
            "retrieval_eval.cli.runs.export_baseline:export_baseline",
            "Write RUN, an accepted baseline, to FILE: its rankings, hits and judgments per "
            "question, its figures and measures, fingerprints and lineage, and how it was "
            "accepted.",
        ),
        "rescore": Lazy(
            "retrieval_eval.cli.runs.rescore:rescore",
            "Score the stored rankings of each RUN against the labels in --set and store each "
            "result as a new run of the same lineage, marked as rescored from its source.",
        ),
        "history": Lazy(
            "retrieval_eval.cli.runs.history:history",
            "One set × retriever over time: rates with intervals, variants, stored verdicts, "
            "the pinned baseline; then flaky and never-hit questions.",
        ),
    },
)
def runs() -> None:
    """The run history: list, show, compare runs and follow their history; pin or accept
    baselines; prune; export."""


@runs.command("list")
@click.option("--set", "set_name", metavar="SET", help="Only runs of this set.")
@click.option("--retriever", metavar="RETRIEVER", help="Only this identifier or target.")
@label_option("Only runs with this label. Repeatable (all must match).")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    metavar="N",
    help="The N newest runs.",
)
@click.option("--ids", is_flag=True, help="Print only the run ids, one per line (for scripts).")
@db_option
@format_option("text", "json")
def list_runs(
    set_name: str | None,
    retriever: str | None,
    labels: dict[str, str],
    limit: int,
    ids: bool,
    db_url: str | None,
    fmt: str,
) -> None:
    """List stored runs, newest first (* marks a pinned baseline)."""
    with open_run_store(db_url) as store:
        found = store.list_runs(
            set_name=set_name, retriever=retriever, labels=labels or None, limit=limit
        )
    if ids:
        click.echo("".join(f"{s.run_id}\n" for s in found), nl=False)
    elif fmt == "json":
        from retrieval_eval.report.runs_list import summaries_json

        click.echo(json.dumps(summaries_json(found), indent=2, ensure_ascii=False))
    elif not found:  # the table (rich, the report records) is loaded only to be shown
        click.echo("no runs stored yet", err=True)
    else:
        from retrieval_eval.report.runs_list import summaries_table

        click.echo(summaries_table(found, width=terminal_width()), nl=False)


@runs.command("show")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the report in --format to FILE; the text report goes to standard output.",
)
@click.option(
    "--baseline",
    "baseline_id",
    metavar="RUN",
    help="Judge RUN again against this run instead of showing the verdict stored with it.",
)
@click.option(
    "--by-source",
    "by_source",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="SET",
    help="Also break the figures down by who labelled each question (human, llm, mixed, "
    "unknown), read from SET, the set file the run was scored against (text and JSON).",
)
@threshold_options
@db_option
@format_option("text", "json", "junit", "markdown", "html")
def show(
    run_id: str,
    output: Path | None,
    baseline_id: str | None,
    by_source: Path | None,
    max_top1_drop: float | None,
    max_top3_drop: float | None,
    max_p95_ms: float | None,
    db_url: str | None,
    fmt: str,
) -> None:
    """Show one run (an id or a unique prefix) with every question and the verdict it
    was given when it was saved."""
    from retrieval_eval.regression.stored import stored_verdict
    from retrieval_eval.regression.verdict import judge

    with open_run_store(db_url) as store:
        stored = store.get_stored(run_id)
        verdict = stored_verdict(stored)
        if baseline_id is not None:
            thresholds = thresholds_or_defaults(max_top1_drop, max_top3_drop, max_p95_ms)
            verdict = judge(stored.run, store.find_baseline(stored.run, baseline_id), thresholds)
    report = RunReport(stored.run, verdict, stored.acceptance, accepted=stored.accepted)
    groups = []
    if by_source is not None:
        from retrieval_eval.report.label_source import by_label_source

        groups.append(by_label_source(stored.run, by_source))
    emit_report([report], fmt, output, by_source=groups)


@runs.command("pin")
@click.argument("run_id", metavar="RUN")
@db_option
def pin(run_id: str, db_url: str | None) -> None:
    """Make RUN the baseline of its set × retriever (it must be complete); a pin
    overrides the newest accepted run until unpinned."""
    with open_run_store(db_url) as store:
        full = store.pin(run_id)
    click.echo(f"pinned {full} as the baseline of its set and retriever")


@runs.command("unpin")
@click.argument("run_id", metavar="RUN")
@db_option
def unpin(run_id: str, db_url: str | None) -> None:
    """Stop using RUN as a pinned baseline (the newest accepted run is used again)."""
    with open_run_store(db_url) as store:
        full = store.unpin(run_id)
    click.echo(f"unpinned {full}")


@runs.command("prune")
@click.option(
    "--keep",
    type=click.IntRange(min=0),
    required=True,
    metavar="N",
    help="Runs to keep per set × retriever (newest first).",
)
@click.option("--dry-run", is_flag=True, help="List the runs that would be deleted; delete none.")
@db_option
def prune(keep: int, dry_run: bool, db_url: str | None) -> None:
    """Delete old runs, keeping the newest N per set × retriever, and each one's pinned
    baseline and newest accepted run (its baseline), whatever N."""
    kept = f"the newest {keep} per set × retriever, pins and baselines"
    with open_run_store(db_url) as store:
        if dry_run:
            doomed, spared = store.prune_plan(keep)
            click.echo("".join(f"{run_id}\n" for run_id in doomed), nl=False)
            for run_id, why in spared:
                click.echo(f"keeping {run_id}: {why}", err=True)
            click.echo(f"would prune {plural(len(doomed), 'run')} (keeping {kept})", err=True)
            return
        removed = store.prune(keep)
    click.echo(f"pruned {plural(removed, 'run')} (kept {kept})")


@runs.command("export")
@click.argument("run_id", metavar="RUN")
@click.option(
    "--trec-run",
    metavar="FILE",
    help="Write the ranking as a TREC run file (- for standard output).",
)
@click.option(
    "--qrels",
    metavar="FILE",
    help="Write the judgments RUN was scored against as graded TREC qrels, judged-not-"
    "relevant documents at 0 included (- for standard output).",
)
@click.option("--run-name", metavar="NAME", help="Run name column (default: the run id).")
@click.option(
    "--keep-no-answer",
    is_flag=True,
    help="Keep questions without any judged document in the run file (they have no "
    "qrels, so tools that need matching query ids, such as ranx, refuse the pair).",
)
@db_option
def export(
    run_id: str,
    trec_run: str | None,
    qrels: str | None,
    run_name: str | None,
    keep_no_answer: bool,
    db_url: str | None,
) -> None:
    """Export RUN for trec_eval, ranx or ir_measures: distinct documents in rank order
    with the retriever's scores, and graded qrels over the same questions (the stored
    grades; expected documents at grade 1 for a run stored before grades were kept)."""
    from retrieval_eval.report.run.trec import trec_export

    if trec_run is None and qrels is None:
        raise click.UsageError("give --trec-run FILE and/or --qrels FILE (- for standard output)")
    if trec_run == "-" and qrels == "-":
        raise click.UsageError("only one of --trec-run and --qrels can go to standard output")
    with open_run_store(db_url) as store:
        run = store.get(run_id)
    exported = trec_export(run, run_name, keep_no_answer=keep_no_answer)
    if trec_run is not None:
        _write_lines(trec_run, exported.run_lines)
        click.echo(f"wrote {len(exported.run_lines)} ranked documents to {trec_run}", err=True)
    if qrels is not None:
        _write_lines(qrels, exported.qrels_lines)
        click.echo(f"wrote {len(exported.qrels_lines)} relevance judgements to {qrels}", err=True)
    if exported.no_answer_left_out:
        click.echo(
            f"left out {plural(len(exported.no_answer_left_out), 'no-answer question')} (no "
            "judged document: no qrels, and no MRR/recall/nDCG); --keep-no-answer keeps "
            "them in the run file",
            err=True,
        )
    if exported.errored:
        click.echo(
            f"left out {plural(len(exported.errored), 'question')} whose retrieval failed",
            err=True,
        )
    if exported.rank_scored:
        click.echo(
            f"{plural(exported.rank_scored, 'question')} scored from ranks (the retriever's "
            "scores were missing or not strictly decreasing in rank order)",
            err=True,
        )


def _write_lines(target: str, lines: tuple[str, ...]) -> None:
    text = "".join(line + "\n" for line in lines)
    if target == "-":
        click.echo(text, nl=False)
        return
    try:
        Path(target).write_text(text, encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write {target}: {e.strerror or e}") from e
