"""``reval eval``: evaluate sets against retrievers, judge each run, save it, report.

Flow: read reval.toml's ``[gate]`` and ``--baseline-file``, check ``--output``, load the
sets, open the store and check ``--baseline`` (all before the first question) ->
``evaluate`` -> ``judge_and_save`` -> render -> ``--output`` -> exit code. The measured
runs are always
reported and saved first: then a run-store failure exits 3, an interruption exits 130
(Ctrl-C) or 143 (SIGTERM), a run with more errored questions than ``--max-errors`` (its
verdict is ``incomplete``) exits 3 whatever the flags, and a regression exits 1 with
``--fail-on-regression``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from retrieval_eval.cli import exit_codes, signals
from retrieval_eval.cli.eval.flow import load_sets, open_store_or_url
from retrieval_eval.cli.options import (
    config_option,
    db_option,
    format_option,
    label_option,
    parse_ks,
    parse_report_files,
    read_token,
    threshold_options,
    timeout_option,
    token_env_option,
)
from retrieval_eval.cli.render import check_writable, emit_report, write_reports
from retrieval_eval.errors import IncompleteRun, Interrupted
from retrieval_eval.questions.model import GoldenQuestionSet
from retrieval_eval.records.parameters import DEFAULT_CONCURRENCY, DEFAULT_KS, DEFAULT_OVERFETCH
from retrieval_eval.records.run import RunResult
from retrieval_eval.regression.verdict_records import ErrorBudget, RunReport, Thresholds

if TYPE_CHECKING:
    from collections.abc import Callable

    from retrieval_eval.evaluation.coordinator import EvalOptions
    from retrieval_eval.regression.baseline_file import BaselineFile
    from retrieval_eval.regression.gate import Gate
    from retrieval_eval.scoring.measures import Measure


#: Defaults shown by --help come from the library's options.
_THRESHOLDS = Thresholds()


@click.command("eval")
@click.argument("positional", nargs=-1, metavar="[RETRIEVER]...")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="SET",
    help="Question set: a file (YAML, JSON, JSONL), a directory of them, or a "
    "registered set name. Repeat for several.",
)
@click.option(
    "--retriever",
    "retrievers",
    multiple=True,
    metavar="RETRIEVER",
    help="grpc://HOST:PORT, grpcs://..., a gRPC target (ipv4:a:p,b:p, dns:///h:p), "
    "a name from reval.toml, or PLUGIN[:ARG]. Repeat for several.",
)
@click.option(
    "--k",
    "ks",
    default=",".join(map(str, DEFAULT_KS)),
    show_default=True,
    callback=parse_ks,
    metavar="K,K,...",
    help="Cut-offs to measure; 1 and 3 are always included.",
)
@click.option(
    "--overfetch",
    type=click.IntRange(min=1),
    default=DEFAULT_OVERFETCH,
    show_default=True,
    help="Ask for max(k) x N results so chunk duplicates still leave max(k) distinct documents.",
)
@click.option(
    "--doc-id-separator",
    metavar="SEP",
    default=None,
    help="Chunk-id separator mapping result ids to documents (overrides Describe).",
)
@click.option(
    "--rel-level",
    "rel_level",
    type=click.IntRange(min=1),
    default=None,
    metavar="GRADE",
    help="The grade a judged document needs to be expected (a target for hits, MRR, "
    "recall) [default: each set's relevance_level, else 1].",
)
@click.option(
    "--measures",
    "measure_names",
    default=None,
    metavar="NAME,NAME,...",
    help="IR measures to report beside the hit rates, by ir_measures name (P@10, AP, "
    "Rprec, Bpref, RR, R@100, nDCG@10 graded, Judged@10; see the scoring reference) "
    "[default: none].",
)
@click.option(
    "--trec-means",
    is_flag=True,
    help="Average --measures as trec_eval does: a judged question with nothing to find "
    "scores 0 instead of being left out.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=DEFAULT_CONCURRENCY,
    show_default=True,
    help="Calls in flight per retriever (latency is measured under this load).",
)
@click.option(
    "--latency-probe",
    "latency_probe",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="After the run, re-ask N questions one at a time and report their latency "
    "apart: latency without load (the latency gate then compares these).",
)
@timeout_option
@format_option("text", "json", "junit", "markdown", "html", "github")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    metavar="FILE",
    help="Write the report to FILE; the terminal then gets each run's verdict and where "
    "the report went.",
)
@click.option(
    "--report",
    "reports",
    multiple=True,
    callback=parse_report_files,
    metavar="FORMAT:FILE",
    help="Also write the report in FORMAT (json, junit, markdown, html) to FILE. Repeatable: "
    "one run gives a CI job its Markdown verdict, HTML page and JUnit file.",
)
@db_option
@click.option("--no-save", is_flag=True, help="Do not store the runs (baselines are still read).")
@label_option("Free-form KEY=VALUE stored with each run (e.g. git_sha=...). Repeatable.")
@click.option(
    "--variant-name",
    metavar="NAME",
    help="Call the variant measured NAME in run lists, histories and comparisons instead "
    "of its lineage name and a letter (bm25-A); stored with the run as the label name=NAME.",
)
@click.option(
    "--baseline",
    "baseline_id",
    metavar="RUN",
    help="Judge every run of this invocation against RUN (an id or unique prefix; a complete "
    "run) instead of the pinned or newest accepted run of the same set and retriever. A pass "
    "against a run of another lineage is not accepted as a baseline.",
)
@click.option(
    "--baseline-file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Judge against the baseline in FILE (written by `reval runs export-baseline`), "
    "with no database needed (with --no-save none is opened). A file of another set "
    "fingerprint or lineage makes the verdict incomparable.",
)
@click.option(
    "--require-baseline",
    is_flag=True,
    help="No baseline is a failing verdict, like a regression: exit 1 with "
    "--fail-on-regression (without it, reported as failing, exit 0); the run is not "
    "accepted as its lineage's first.",
)
@threshold_options
@click.option(
    "--max-drift",
    type=click.FloatRange(0, 1),
    default=None,
    metavar="RATE",
    help="A top-1 or top-3 drop larger than RATE since the best accepted run of the "
    "retriever (since a run was last accepted with `reval runs accept`) is a regression "
    "[default: reval.toml [gate], else drift is reported as a warning].",
)
@click.option(
    "--max-errors",
    metavar="N|P%",
    default=None,
    show_default=f"{_THRESHOLDS.max_errors}, or reval.toml [gate]",
    help="Errored questions a run may have and still be judged: a count, or a percentage "
    "of its questions (2%). Beyond it the verdict is incomplete and the exit code 3, "
    "whatever the other flags.",
)
@click.option(
    "--keep-asking",
    is_flag=True,
    help="Ask every question even once a run's errors exceed --max-errors (for diagnosis: "
    "each question's own error). By default such a run stops asking: its verdict is "
    "incomplete anyway, and the rest are recorded as not asked, never as misses.",
)
@click.option(
    "--fail-on-regression",
    is_flag=True,
    help="Exit 1 when a verdict is regression or incomparable (or no-baseline with "
    "--require-baseline).",
)
@token_env_option("Send the bearer token held in environment variable VAR to gRPC retrievers.")
@config_option
@click.pass_context
def eval_command(
    ctx: click.Context,
    positional: tuple[str, ...],
    sets: tuple[str, ...],
    retrievers: tuple[str, ...],
    ks: tuple[int, ...],
    overfetch: int,
    doc_id_separator: str | None,
    rel_level: int | None,
    measure_names: str | None,
    trec_means: bool,
    concurrency: int,
    latency_probe: int,
    timeout_s: float | None,
    fmt: str,
    output: Path | None,
    reports: tuple[tuple[str, Path], ...],
    db_url: str | None,
    no_save: bool,
    labels: dict[str, str],
    variant_name: str | None,
    baseline_id: str | None,
    baseline_file: Path | None,
    require_baseline: bool,
    max_top1_drop: float | None,
    max_top3_drop: float | None,
    max_p95_ms: float | None,
    max_drift: float | None,
    max_errors: str | None,
    keep_asking: bool,
    fail_on_regression: bool,
    token_env: str | None,
    config_path: Path | None,
) -> None:
    """Evaluate every SET against every RETRIEVER and report hit rates and regressions.

    Retrievers are given with --retriever, or as RETRIEVER arguments after the options
    (the same specs: grpc://HOST:PORT, a reval.toml name, or a plugin such as bm25:INDEX).

    \b
    Examples:
      reval eval --set faq.yaml --retriever grpc://127.0.0.1:50051
      reval eval --set faq.yaml --set support.yaml --retriever bm25:./index \\
          --retriever grpc://search:50051 --format junit --output reval.xml \\
          --label git_sha=$GIT_SHA --fail-on-regression
    """
    from retrieval_eval.evaluation.coordinator import EvalOptions
    from retrieval_eval.regression.gate import ThresholdChoice
    from retrieval_eval.regression.gate_config import load_gate
    from retrieval_eval.regression.record import judge_and_save
    from retrieval_eval.report.run_names import NAME_LABEL
    from retrieval_eval.scoring.measures import parse_measures
    from retrieval_eval.store.store import RunStore

    specs = [*positional, *retrievers]
    if not sets:
        raise click.UsageError("give at least one question set with --set")
    if not specs:
        raise click.UsageError("give at least one retriever with --retriever")
    if baseline_file is not None and baseline_id is not None:
        raise click.UsageError("give --baseline RUN or --baseline-file FILE, not both")
    token = read_token(token_env)
    if variant_name:
        labels = {**labels, NAME_LABEL: variant_name}
    given = ThresholdChoice(
        max_top1_drop, max_top3_drop, max_p95_ms,
        None if max_errors is None else ErrorBudget.parse(max_errors), max_drift,
    )  # fmt: skip
    gate = load_gate(config_path, given)
    baseline = None if baseline_file is None else _read_baseline_file(baseline_file)
    options = EvalOptions(
        ks=ks,
        overfetch=overfetch,
        doc_id_separator=doc_id_separator,
        concurrency=concurrency,
        latency_probe=latency_probe,
        timeout_s=timeout_s,
        labels=labels,
        stop_asking=None if keep_asking else _stop_asking(gate),
    )
    if output is not None:
        check_writable(output)  # before anything is measured
    elif fmt == "html" and sys.stdout.isatty():
        raise click.UsageError("--format html writes a file: add --output FILE (or redirect)")
    measures = parse_measures(measure_names) if measure_names else ()
    if output is not None and any(path.resolve() == output.resolve() for _, path in reports):
        raise click.UsageError(f"--output and --report both write {output}")
    for _, path in reports:
        check_writable(path)
    question_sets = load_sets(sets)
    if rel_level is not None:
        question_sets = [qs.at_level(rel_level) for qs in question_sets]
    # a bad --db or RUN fails before measuring; judging against a file needs no store
    # unless the runs are saved
    store = None if baseline and no_save else open_store_or_url(db_url, baseline_id)
    try:
        with signals.measuring():
            # With --output the file gets --format and the terminal the text report.
            shown = "text" if output is not None else fmt
            runs, interrupted = _evaluate(question_sets, specs, options, shown, config_path, token)
            if measures:
                runs = with_measures(runs, question_sets, measures, trec_means=trec_means)
            del question_sets  # the runs keep what they need: free the sets' records
            with signals.finishing():
                if interrupted:
                    signals.announce_stop(saving=not no_save)
                recorded = judge_and_save(
                    runs, store=store, baseline_id=baseline_id, save=not no_save, gate=gate,
                    baseline_file=baseline, require_baseline=require_baseline,
                )  # fmt: skip
                write_reports(recorded, reports)
                emit_report(recorded, fmt, output)
            stopped_by = signals.received()
    finally:
        if isinstance(store, RunStore):
            store.close()
    if recorded.store_error is not None:
        raise recorded.store_error
    if interrupted or stopped_by is not None:
        kept = "reported" if no_save else "saved as interrupted and reported"
        raise Interrupted(f"interrupted: the measured part was {kept}", signum=stopped_by)
    if recorded.incomplete:
        names = ", ".join(f"{r.run.set_name} × {r.run.retriever_target} ({_errors(r.run)}"
                          f"{_nothing(r)})" for r in recorded.incomplete)  # fmt: skip
        budgets = sorted({str(gate.effective(r.run).max_errors) for r in recorded.incomplete})
        raise IncompleteRun(
            f"too many failed retrievals (--max-errors {', '.join(budgets)}): {names}; the "
            "report and the stored runs say which questions failed and why"
        )
    if fail_on_regression and recorded.regressed:
        ctx.exit(exit_codes.REGRESSION)


def _read_baseline_file(path: Path) -> BaselineFile:
    from retrieval_eval.regression.baseline_file import read_baseline_file

    return read_baseline_file(path)


def _stop_asking(gate: Gate) -> Callable[[int, int], bool]:
    """Stop asking a run's questions once its errors exceed every error budget a lineage
    of this invocation may have (the command line's, else reval.toml's, else the
    default): which lineage a run is of is known only once it is described."""
    if gate.options.max_errors is not None:
        return gate.options.max_errors.exceeded_by
    choices = (gate.table, *gate.entries.values())
    budgets = [c.max_errors for c in choices if c.max_errors is not None] or [
        _THRESHOLDS.max_errors
    ]
    if gate.table.max_errors is None:
        budgets.append(_THRESHOLDS.max_errors)
    return lambda errors, total: all(b.exceeded_by(errors, total) for b in budgets)


def with_measures(
    runs: list[RunResult],
    question_sets: list[GoldenQuestionSet],
    measures: tuple[Measure, ...],
    *,
    trec_means: bool,
) -> list[RunResult]:
    """Each run with the asked measures' means, against the grades of its set."""
    from dataclasses import replace

    from retrieval_eval.scoring.measures import run_measures

    by_fingerprint = {(qs.name, qs.fingerprint): qs for qs in question_sets}
    done = []
    for run in runs:
        qs = by_fingerprint[run.set_name, run.set_fingerprint]
        means = run_measures(
            run.questions, qs.questions, measures, level=qs.relevance_level, trec_means=trec_means
        )
        convention = "trec_eval" if trec_means else "reval"
        done.append(replace(run, measures=means, measure_convention=convention))
    return done


def _errors(run: RunResult) -> str:
    from retrieval_eval.report.plural import plural

    skipped = run.not_asked_count
    if not skipped:
        return plural(run.error_count, "error") + _first_error(run)
    asked = plural(run.error_count - skipped, "error")
    return (f"{asked}{_first_error(run)}, then {plural(skipped, 'question')} not asked; "
            "--keep-asking asks them")  # fmt: skip


#: Longest error message the one-line summary quotes (the report keeps it whole).
SHOWN_ERROR_CHARS = 200


def _first_error(run: RunResult) -> str:
    """Why, in the line itself: the first failure's kind and message, and how many of the
    questions failed the same way."""
    from retrieval_eval.records.failures import FailureKind
    from retrieval_eval.report.plural import plural
    from retrieval_eval.report.safe_text import short

    failures = [q.error for q in run.questions
                if q.error is not None and q.error.kind != FailureKind.NOT_ASKED]  # fmt: skip
    if not failures:
        return ""
    first = failures[0]
    alike = sum(f.kind == first.kind and f.message == first.message for f in failures)
    hit = plural(alike, "question")
    return (f"; first: {first.kind}: {short(first.message, SHOWN_ERROR_CHARS)} "
            f"(on {hit} of {len(run.questions)})")  # fmt: skip


def _nothing(report: RunReport) -> str:
    """A run can be incomplete within the error budget: when it scored nothing, or nothing
    in common with its baseline."""
    if report.run.metrics.count == 0:
        return ", no question scored"
    if report.run.error_count and report.verdict and report.verdict.baseline_run_id:
        return ", nothing scored in common with its baseline"
    return ""


def _evaluate(
    question_sets: list[GoldenQuestionSet],
    specs: list[str],
    options: EvalOptions,
    fmt: str,
    config_path: Path | None,
    token: str | None,
) -> tuple[list[RunResult], bool]:
    """The runs, and whether Ctrl-C cut them short (then they hold what was measured)."""
    from retrieval_eval.cli.progress import RichProgress, wants_progress
    from retrieval_eval.evaluation.coordinator import EvaluationInterrupted, evaluate

    def run(progress: RichProgress | None) -> list[RunResult]:
        return evaluate(
            question_sets, specs, options, progress=progress, config_path=config_path, token=token
        )

    try:
        if not wants_progress(fmt):
            return run(None), False
        with RichProgress() as progress:
            return run(progress), False
    except EvaluationInterrupted as e:
        if not e.runs:
            raise
        return e.runs, True
