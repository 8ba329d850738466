"""``reval quickstart``: the whole pipeline on the shipped example data, then what to try next."""

from __future__ import annotations

import click

from retrieval_eval.errors import IncompleteRun

NEXT_STEPS = """\
Next, try:
  reval quickstart                  run it again: the report compares with this run
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


@click.command("quickstart")
@click.option(
    "--db",
    "db_url",
    metavar="URL",
    help="Run store URL (default: $REVAL_DATABASE_URL, else $REVAL_HOME/runs.sqlite).",
)
def quickstart(db_url: str | None) -> None:
    """Measure lexical, vector, hybrid and reranked retrieval on the shipped example data.

    Indexes it with the BM25 and dense plugins, serves both over gRPC, evaluates BM25,
    dense, their RRF fusion and BM25 reranked by the dense model, saves the four runs and
    compares them side by side. Needs nothing but the two plugins (no network). Run it
    twice: each retriever's second run is judged against its first.
    """
    from retrieval_eval.cli.render import emit_report
    from retrieval_eval.comparison.results import QuestionsShown
    from retrieval_eval.quickstart import (
        RETRIEVERS,
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
    emit_report([RunReport(result.run, result.verdict)], "text", None)
    comparison = compare_quickstart(result)
    click.echo("\nThe four retrievers side by side (A = BM25, the reference):\n")
    click.echo(render_comparison_text(comparison, QuestionsShown.NONE), nl=False)
    verdicts = ", ".join(
        f"{name} {r.verdict.kind.value}"
        for name, r in zip(RETRIEVERS, result.reports, strict=True)
        if r.verdict
    )
    click.echo(f"\nverdicts against the previous quickstart: {verdicts}")
    click.echo(
        f"\nquickstart finished in {result.seconds:.1f} s; runs are stored in {result.database}"
    )
    report = write_html_report(result)
    page = write_html_comparison(comparison)
    click.echo(
        next_steps(result.run.run_id, result.verdict.baseline_run_id, str(report), str(page))
    )
    if any(r.verdict and r.verdict.kind is VerdictKind.INCOMPLETE for r in result.reports):
        raise IncompleteRun("a quickstart run had failed retrievals; see its report")


def next_steps(
    run_id: str | None, baseline_id: str | None, report: str = "", comparison: str = ""
) -> str:
    from retrieval_eval.example_data import questions_path

    compare = ""
    if run_id and baseline_id:
        compare = (
            f"\n  reval runs compare {baseline_id} {run_id}\n"
            f"{'':36}this run against the previous one, question by question"
        )
    return NEXT_STEPS.format(
        compare=compare, questions=questions_path(), report=report, comparison=comparison
    )
