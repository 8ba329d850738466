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
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from retrieval_eval.cli import exit_codes, signals
from retrieval_eval.cli.eval.flow import (
    evaluate_runs,
    load_sets,
    open_store_or_url,
    refuse_untrusted_labels,
    with_measures,
)
from retrieval_eval.cli.eval.label_drift import warn_label_drift
from retrieval_eval.cli.eval.messages import error_summary, nothing_scored
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
from retrieval_eval.records.parameters import DEFAULT_CONCURRENCY, DEFAULT_KS, DEFAULT_OVERFETCH
from retrieval_eval.regression.verdict_records import ErrorBudget, Thresholds

if TYPE_CHECKING:
    from retrieval_eval.regression.verdict_records import RunReport
    from retrieval_eval.report.label_source import BySource

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
@click.option(
    "--corpus",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Corpus JSONL the sets are labelled on: warn on stderr when labels rest on "
    "documents changed since they were judged (read only when a set file records "
    "document digests).",
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
    "--unjudged-incomparable/--unjudged-strict",
    "unjudged_incomparable",
    default=None,
    help="A regression whose every lost hit rests on documents the set never judged is "
    "incomparable (still failing: exit 1 with --fail-on-regression, never a pass or a "
    "baseline) until a person judges them; --unjudged-strict: an unjudged loss is a loss "
    "[default: reval.toml [gate] unjudged_incomparable, else strict].",
)
@click.option(
    "--keep-asking",
    is_flag=True,
    help="Ask every question even once a run's errors exceed --max-errors (for diagnosis: "
    "each question's own error). By default such a run stops asking: its verdict is "
    "incomplete anyway, and the rest are recorded as not asked, never as misses.",
)
@click.option(
    "--by-source",
    "by_source",
    is_flag=True,
    help="Also break each run's figures down by who labelled its questions (human, llm, "
    "mixed, unknown), read from the set file (text and JSON reports).",
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
    corpus: Path | None,
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
    unjudged_incomparable: bool | None,
    keep_asking: bool,
    by_source: bool,
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
    from retrieval_eval.regression.baseline_file import read_baseline_file
    from retrieval_eval.regression.gate import ThresholdChoice, stop_asking
    from retrieval_eval.regression.gate_config import load_gate
    from retrieval_eval.regression.record import judge_and_save
    from retrieval_eval.regression.unjudged import SetJudgments
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
        unjudged_incomparable,
    )  # fmt: skip
    gate = load_gate(config_path, given)
    baseline = None if baseline_file is None else read_baseline_file(baseline_file)
    options = EvalOptions(
        ks=ks,
        overfetch=overfetch,
        doc_id_separator=doc_id_separator,
        concurrency=concurrency,
        latency_probe=latency_probe,
        timeout_s=timeout_s,
        labels=labels,
        stop_asking=None if keep_asking else stop_asking(gate),
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
    refuse_untrusted_labels(question_sets, config_path, gating=fail_on_regression)
    if rel_level is not None:
        question_sets = [qs.at_level(rel_level) for qs in question_sets]
    drift = warn_label_drift(question_sets, corpus) if corpus is not None else []
    # a bad --db or RUN fails before measuring; judging against a file needs no store
    # unless the runs are saved
    store = None if baseline and no_save else open_store_or_url(db_url, baseline_id)
    try:
        with signals.measuring():
            # With --output the file gets --format and the terminal the text report.
            shown = "text" if output is not None else fmt
            runs, interrupted = evaluate_runs(
                question_sets, specs, options, shown, config_path, token
            )
            if measures:
                runs = with_measures(runs, question_sets, measures, trec_means=trec_means)
            set_files = {qs.name: qs.source for qs in question_sets}
            judgments = [SetJudgments.of(qs) for qs in question_sets]  # what judging needs
            del question_sets  # the runs keep what they need: free the sets' records
            with signals.finishing():
                if interrupted:
                    signals.announce_stop(saving=not no_save)
                recorded = judge_and_save(
                    runs, store=store, baseline_id=baseline_id, save=not no_save, gate=gate,
                    baseline_file=baseline, require_baseline=require_baseline,
                    judgments=judgments,
                )  # fmt: skip
                recorded = replace(recorded, warnings=(*recorded.warnings, *drift))
                groups = _by_source(recorded.reports, set_files) if by_source else []
                write_reports(recorded, reports, groups)
                emit_report(recorded, fmt, output, by_source=groups)
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
        names = ", ".join(f"{r.run.set_name} × {r.run.retriever_target} ({error_summary(r.run)}"
                          f"{nothing_scored(r)})" for r in recorded.incomplete)  # fmt: skip
        budgets = sorted({str(gate.effective(r.run).max_errors) for r in recorded.incomplete})
        raise IncompleteRun(
            f"too many failed retrievals (--max-errors {', '.join(budgets)}): {names}; the "
            "report and the stored runs say which questions failed and why"
        )
    if fail_on_regression and recorded.regressed:
        ctx.exit(exit_codes.REGRESSION)


def _by_source(reports: Sequence[RunReport], set_files: dict[str, str]) -> list[BySource | None]:
    # the label reader (round-trip YAML) loads only when --by-source asks for it
    from retrieval_eval.report.label_source import breakdowns

    return breakdowns([r.run for r in reports], set_files)
