"""``reval sets lint``: label checks of a set against its corpus and its stored runs.

A thin layer over ``retrieval_eval.questions.lint.lint_set``: load the set, read the
corpus, fetch the set's stored runs, render findings by kind. ``--strict`` makes findings
exit 1 (a CI step on the set itself); bad input exits 2 as for ``sets validate``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from retrieval_eval.cli import exit_codes
from retrieval_eval.cli.options import db_option, format_option
from retrieval_eval.metric_keys import TOP1_HIT_RATE
from retrieval_eval.questions.lint.options import (
    DEFAULT_MATCH_CUTOFF,
    DEFAULT_MIN_RETRIEVERS,
    DEFAULT_NEAR_DUPLICATE_THRESHOLD,
    LintOptions,
    require_lint_dependencies,
)
from retrieval_eval.stats.mcnemar import DEFAULT_DISCORDANCE, DEFAULT_MAX_DROP

if TYPE_CHECKING:
    from retrieval_eval.questions.corpus import CorpusDocument
    from retrieval_eval.questions.lint.drift import DriftReport
    from retrieval_eval.questions.lint.lint import LintReport
    from retrieval_eval.questions.model import GoldenQuestionSet
    from retrieval_eval.records.run import RunResult

_UNIT = click.FloatRange(0, 1)


@click.command("lint", short_help="Find wrong forms, duplicates and missing targets in a set.")
@click.argument("source")
@click.option(
    "--corpus",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Corpus JSONL (BEIR style: '_id', 'title', 'text'; .gz ok) the set is labelled on.",
)
@db_option
@click.option("--no-runs", is_flag=True, help="Skip the checks that read stored runs.")
@click.option("--max-runs", type=click.IntRange(min=1), default=50, show_default=True,
              help="Read at most this many of the set's newest stored runs.")  # fmt: skip
@click.option("--max-top1-drop", type=_UNIT, default=DEFAULT_MAX_DROP, show_default=True,
              help="The top-1 regression threshold to plan the set's size for.")  # fmt: skip
@click.option("--max-top3-drop", type=_UNIT, default=DEFAULT_MAX_DROP, show_default=True,
              help="The top-3 regression threshold to plan the set's size for.")  # fmt: skip
@click.option(
    "--discordance",
    type=click.FloatRange(0, 1, min_open=True),
    default=DEFAULT_DISCORDANCE,
    show_default=True,
    help="Assumed share of questions whose hit flips (either way) between two compared "
    "runs, for the questions-needed figure.",
)
@click.option("--match-cutoff", type=_UNIT, default=DEFAULT_MATCH_CUTOFF, show_default=True,
              help="Vocabulary overlap from which a question reads as MATCH.")  # fmt: skip
@click.option(
    "--near-duplicate-threshold",
    type=click.FloatRange(0, 1, min_open=True),
    default=DEFAULT_NEAR_DUPLICATE_THRESHOLD,
    show_default=True,
    help="Shingle (Jaccard) similarity from which two documents are near-duplicates.",
)
@click.option("--min-retrievers", type=click.IntRange(min=1), default=DEFAULT_MIN_RETRIEVERS,
              show_default=True,
              help="Distinct retrievers whose runs the run checks need.")  # fmt: skip
@click.option(
    "--fix-moved",
    is_flag=True,
    help="Relabel labels whose judged text moved to another id (same digest, new id) in "
    "the set file, keeping its comments and order, then lint the fixed set.",
)
@click.option("--strict", is_flag=True, help="Exit 1 when there are findings.")
@format_option("text", "json")
@click.pass_context
def lint_command(
    ctx: click.Context,
    source: str,
    corpus: Path,
    db_url: str | None,
    no_runs: bool,
    max_runs: int,
    max_top1_drop: float,
    max_top3_drop: float,
    discordance: float,
    match_cutoff: float,
    near_duplicate_threshold: float,
    min_retrievers: int,
    fix_moved: bool,
    strict: bool,
    fmt: str,
) -> None:
    """Check a set's labels (SOURCE: a set file or name) against its corpus: forms that
    disagree with the measured vocabulary overlap, duplicate questions, expected documents
    missing, empty or with an untargeted near-duplicate; from the set's stored runs,
    labels the retrievers contradict and questions that never discriminate. Also says
    what the set's size can detect for the regression thresholds, and for every label
    whose document digest the set records: unchanged, changed since judged, moved to
    another id (fixable with --fix-moved) or gone.

    Exit 0 (1 with --strict when there are findings), 2 on bad input.
    """
    from retrieval_eval.cli.extras import require_extra

    require_extra("lint", "reval sets lint")
    from retrieval_eval.questions.corpus import read_corpus
    from retrieval_eval.questions.digests_file import read_set_digests, set_path
    from retrieval_eval.questions.lint.lint import lint_set
    from retrieval_eval.questions.loading import load_question_set

    require_lint_dependencies()
    options = LintOptions(
        match_cutoff=match_cutoff,
        near_duplicate_threshold=near_duplicate_threshold,
        max_top1_drop=max_top1_drop,
        max_top3_drop=max_top3_drop,
        discordance=discordance,
        min_retrievers=min_retrievers,
    )
    question_set = load_question_set(source)
    documents = list(read_corpus(corpus))
    path = set_path(source)
    if fix_moved:
        question_set = _fix_moved(path, source, question_set, documents, fmt)
    digests = read_set_digests(path) if path is not None else None
    runs = [] if no_runs else _stored_runs(db_url, question_set.name, max_runs)
    report = lint_set(
        question_set, documents, corpus_name=str(corpus), runs=runs, options=options,
        digests=digests,
    )  # fmt: skip
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        _render(report)
    if strict and report.findings:
        ctx.exit(exit_codes.FINDINGS)


def _fix_moved(
    path: Path | None,
    source: str,
    question_set: GoldenQuestionSet,
    documents: list[CorpusDocument],
    fmt: str,
) -> GoldenQuestionSet:
    """Relabel the moved labels of the set file; the set as it reads afterwards."""
    from retrieval_eval.errors import InputError
    from retrieval_eval.labelling.fix_moved import fix_moved
    from retrieval_eval.questions.digests_file import read_set_digests
    from retrieval_eval.questions.lint.drift import corpus_digests, label_drift
    from retrieval_eval.questions.loading import load_question_set
    from retrieval_eval.report.plural import plural

    if path is None:
        raise InputError(f"--fix-moved rewrites a set file; {source!r} is not one")
    drift = label_drift(question_set.questions, read_set_digests(path), corpus_digests(documents))
    fixed = fix_moved(path, drift.moved())
    click.echo(f"fixed {plural(fixed, 'moved label')} in {path}", err=fmt == "json")
    return load_question_set(path) if fixed else question_set


def _stored_runs(db_url: str | None, set_name: str, limit: int) -> list[RunResult]:
    from retrieval_eval.store.store import RunStore

    with RunStore.open(db_url) as store:
        return [store.get(s.run_id) for s in store.list_runs(set_name=set_name, limit=limit)]


def _render(report: LintReport) -> None:
    click.echo(
        f"{report.set_name}: {report.questions} questions, corpus {report.corpus} "
        f"({report.corpus_documents} documents), {report.runs} stored runs read"
    )
    groups = report.by_kind()
    for kind, findings in groups.items():
        click.echo(f"\n{kind.value} ({len(findings)})")
        for f in findings:
            click.echo(f"  {', '.join(f.question_ids)}: {f.message}")
    total = len(report.findings)
    click.echo(f"\n{total} finding{'' if total == 1 else 's'}" if total else "\nno findings")
    c = report.calibration
    click.echo(
        f"form check: MATCH cut-off {c.cutoff:g} puts {c.agreeing} of {c.labelled} labelled "
        f"questions on their labelled side (this set's own best cut-off: "
        f"{c.set_best_cutoff:.2f}, {c.set_best_agreeing} of {c.labelled})"
    )
    _render_power(report)
    if report.drift is not None:
        _render_drift(report.drift)


def _render_drift(drift: DriftReport) -> None:
    c = drift.counts()
    click.echo(
        f"\nlabels against their judged text: {c['unchanged']} unchanged, {c['changed']} "
        f"changed since judged, {c['moved']} moved to another id, {c['gone']} gone, "
        f"{c['unrecorded']} without a digest"
    )
    for d in drift.drifted:
        where = f" -> {d.moved_to} (--fix-moved)" if d.moved_to else ""
        click.echo(f"  {d.question_id}: {d.document_id} {d.state.value}{where}")


def _render_power(report: LintReport) -> None:
    p = report.power
    click.echo(f"\nsize: {p.questions} questions; one question moves a hit rate by "
               f"{p.one_question:.3f}")  # fmt: skip
    if p.smallest_significant_change is None:
        click.echo(f"  no change can be significant: exact McNemar needs {p.significant_flips} "
                   f"questions flipping one way (alpha {p.alpha:g})")  # fmt: skip
    else:
        click.echo(f"  smallest significant net change: {p.significant_flips} questions "
                   f"({p.smallest_significant_change:.3f}), all flipping one way "
                   f"(exact McNemar, alpha {p.alpha:g})")  # fmt: skip
    for t in p.thresholds:
        name = "top-1" if t.metric == TOP1_HIT_RATE else "top-3"
        verdict = "enough" if p.questions >= t.questions_needed else "too few"
        click.echo(
            f"  {name} drop {t.threshold:g} = {t.threshold_questions:g} questions "
            f"({t.regression_losses}+ net losses regress); {p.power:.0%} power needs "
            f"{t.questions_needed} questions if {t.discordance:.0%} flip: {verdict}"
        )
