"""``reval quickstart``: the whole pipeline on the shipped example data, then what to try next."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from retrieval_eval.errors import IncompleteRun

if TYPE_CHECKING:  # loaded when the command runs
    from retrieval_eval.comparison.results import Comparison
    from retrieval_eval.quickstart import QuickstartResult
    from retrieval_eval.records.metrics import RateEstimate

NEXT_STEPS = """\
Next, try:
  reval quickstart                  run it again: the report compares with this run{details}
  reval runs list                   the runs saved so far{compare}
  reval check-retriever grpc://HOST:PORT
                                    check your own retriever against the gRPC contract
  reval eval --set my-set.yaml --retriever grpc://HOST:PORT --fail-on-regression
                                    measure it on your own golden set, as a CI gate: exit 1
                                    on a regression, exit 3 when more questions fail to
                                    retrieve than --max-errors allows (default 0; errors
                                    are never counted as misses)
docs/how-to/serve-a-retriever.md shows a complete retriever server in a dozen lines of
Python, and docs/how-to/write-a-set.md the golden-set format (start from {questions}).

See it: open the HTML report of this run, {report}
the four retrievers side by side, {comparison}
or browse every stored run in a web browser (needs the ui extra):
  reval ui"""
#: A next step of a quickstart run without ``--details``.
DETAILS = """
  reval quickstart --details        the same, with BM25's whole report and the full
                                    comparison printed here"""


@click.command("quickstart")
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="Run store URL (default: $REVAL_DATABASE_URL, else $REVAL_HOME/runs.sqlite).",
)
@click.option(
    "--details",
    is_flag=True,
    help="Print BM25's whole report and the full comparison too (both are always written "
    "as HTML pages).",
)
def quickstart(db_url: str | None, details: bool) -> None:
    """Measure lexical, vector, hybrid and reranked retrieval on the shipped example data.

    Indexes it with the BM25 and dense plugins, serves both over gRPC, evaluates BM25,
    dense, their RRF fusion and BM25 reranked by the dense model, saves the four runs and
    prints their verdicts and the four side by side. Needs nothing but the two plugins (no
    network). Run it twice: each retriever's second run is judged against its first.
    """
    from retrieval_eval.cli.render import emit_report, terminal_width
    from retrieval_eval.comparison.results import QuestionsShown
    from retrieval_eval.quickstart import (
        compare_quickstart,
        run_quickstart,
        write_html_comparison,
        write_html_report,
    )
    from retrieval_eval.regression.verdict_records import RunReport, VerdictKind
    from retrieval_eval.report.comparison.text import render_comparison_text

    def notify(message: str) -> None:
        click.echo(f"· {message}", err=True)

    result = run_quickstart(db_url, notify=notify)
    comparison = compare_quickstart(result)
    report = write_html_report(result)
    page = write_html_comparison(comparison)
    click.echo(overview(result, comparison, terminal_width()), nl=False)
    if details:
        click.echo(f"\n{RULE}\nBM25's report:\n")
        emit_report([RunReport(result.run, result.verdict)], "text", None)
        click.echo(f"\n{RULE}\nThe four retrievers side by side (A = BM25, the reference):\n")
        click.echo(
            render_comparison_text(comparison, QuestionsShown.NONE, width=terminal_width()),
            nl=False,
        )
    click.echo(
        f"\nquickstart finished in {result.seconds:.1f} s; runs are stored in {result.database}"
    )
    click.echo(
        next_steps(
            result.run.run_id,
            result.verdict.baseline_run_id,
            str(report),
            str(page),
            details=details,
        )
    )
    if any(r.verdict and r.verdict.kind is VerdictKind.INCOMPLETE for r in result.reports):
        raise IncompleteRun("a quickstart run had failed retrievals; see its report")


#: Between the overview and the details ``--details`` adds.
RULE = "-" * 40


def overview(result: QuickstartResult, comparison: Comparison, width: int) -> str:
    """The verdicts, then the four retrievers side by side: what a newcomer reads first."""
    from retrieval_eval.metric_keys import TOP1_HIT_RATE, TOP3_HIT_RATE
    from retrieval_eval.quickstart import RETRIEVERS
    from retrieval_eval.report.fit_table import Column, Drop, fitted_table
    from retrieval_eval.report.text_style import Style, string_console

    kinds = [r.verdict.kind.value if r.verdict else "not checked" for r in result.reports]
    if len(set(kinds)) == 1:
        verdict = f"every retriever {kinds[0]}"
    else:
        verdict = ", ".join(f"{n} {k}" for n, k in zip(RETRIEVERS, kinds, strict=True))
    first = all(r.verdict is None or not r.verdict.baseline_run_id for r in result.reports)
    first_run = " (a first run: the next quickstart is judged against it)" if first else ""
    lines = [f"verdicts against the previous quickstart: {verdict}{first_run}"]
    columns = (Column(""), Column("retriever"), Column("top-1", "right"),
               Column("top-3", "right"), Column("Δ top-1 vs A", "right"),
               Column("McNemar p (Holm)", "right"), Column("p50 ms", "right"),
               Column("run"), Column("verdict"))  # fmt: skip
    rows = []
    for i, (name, run, report) in enumerate(
        zip(RETRIEVERS, comparison.runs, result.reports, strict=True)
    ):
        versus = comparison.versus[i - 1] if i else None
        delta = "" if versus is None else next(
            (f"{d.delta:+.3f}" for d in versus.deltas
             if d.metric == TOP1_HIT_RATE and d.delta is not None), "-")  # fmt: skip
        test = None if versus is None else next((t for t in versus.tests if t.k == 1), None)
        rows.append([
            "ABCD"[i],
            name,
            _rate(run.metrics.intervals.get(TOP1_HIT_RATE)),
            _rate(run.metrics.intervals.get(TOP3_HIT_RATE)),
            delta,
            "" if test is None else f"{test.p_holm:.2f}",
            "-" if run.latency is None else f"{run.latency.p50_ms:.1f}",
            run.run_id,
            report.verdict.kind.value if report.verdict else "not checked",
        ])  # fmt: skip
    console, buffer = string_console(width, color=False)
    steps = (Drop("run"), Drop("p50 ms"))
    console.print(fitted_table(Style(False), columns, rows, width, steps))
    questions = comparison.runs[0].question_count
    lines += ["", f"The four retrievers on set {comparison.runs[0].set_name} ({questions} "
              "questions; A = BM25, the reference):"]  # fmt: skip
    lines += [line.rstrip() for line in buffer.getvalue().splitlines()]
    return "".join(line + "\n" for line in lines)


def _rate(estimate: RateEstimate | None) -> str:
    if estimate is None:
        return "-"
    return f"{estimate.rate:.3f} ({estimate.successes}/{estimate.count})"


def next_steps(
    run_id: str | None,
    baseline_id: str | None,
    report: str = "",
    comparison: str = "",
    *,
    details: bool = True,
) -> str:
    from retrieval_eval.example_data import questions_path

    compare = ""
    if run_id and baseline_id:
        compare = (
            f"\n  reval runs compare {baseline_id} {run_id}\n"
            f"{'':36}this run against the previous one, question by question"
        )
    return NEXT_STEPS.format(
        compare=compare,
        details="" if details else DETAILS,
        questions=questions_path(),
        report=report,
        comparison=comparison,
    )
