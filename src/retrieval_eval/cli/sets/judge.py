"""``reval sets judge``: the judging page of a drafted set, served on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from retrieval_eval.cli.options import db_option
from retrieval_eval.cli.sets.model_options import model_endpoint, model_options, tokens_line
from retrieval_eval.cli.sets.pool_from import add_run_candidates, pool_from_option
from retrieval_eval.errors import PluginError
from retrieval_eval.labelling.pool import DEFAULT_POOL_DEPTH
from retrieval_eval.version import install_extra


@click.command("judge", short_help="Judge a drafted set in the viewer (prints its URL).")
@click.argument("set_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--corpus",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Corpus JSONL (BEIR style; .gz ok): the documents the page shows.",
)
@click.option(
    "--address",
    default="127.0.0.1:0",
    show_default=True,
    metavar="HOST:PORT",
    help="Where the viewer listens (port 0 picks a free one); loopback only.",
)
@click.option("--judge", "judge", help="Your name in the judgement history [default: "
              "$REVAL_JUDGE, else the login name].")  # fmt: skip
@db_option
@click.option("--llm-url", metavar="URL", default=None,
              help="Grade the candidates with a model on this OpenAI-compatible server "
              "instead of opening the page.")  # fmt: skip
@click.option("--model", default=None, help="The model that grades (with --llm-url).")
@click.option("--prompt", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, help="Your own judging prompt template (with --llm-url).")  # fmt: skip
@pool_from_option
@click.option("--depth", type=int, default=DEFAULT_POOL_DEPTH, show_default=True,
              help="With --pool-from: how deep in each stored ranking to look.")  # fmt: skip
@model_options
def judge_command(
    set_file: Path, corpus: Path, address: str, judge: str | None, db_url: str | None,
    llm_url: str | None, model: str | None, prompt: Path | None, pool_from: tuple[str, ...],
    depth: int, **endpoint_options: Any,
) -> None:  # fmt: skip
    """Open the judging page for SET_FILE in the reval ui viewer, on loopback, and print
    its URL. Each save writes the file back (comments and layout kept), each decided
    candidate with source human:NAME; a model's grade and reason for a candidate, when the
    file holds one, show beside it as a suggestion. Ctrl-C stops.

    With --llm-url and --model, a model grades every candidate no person decided instead
    (no page): its grades and reasons go into each question's history under its source
    (llm:MODEL@PROMPT-DIGEST); the labels stay a person's until `reval sets agreement
    --accept` finds the model agrees with your judges well enough.

    With --pool-from RUN, the documents in the top --depth of those stored runs that
    carry no judgment in SET_FILE are added as candidates first (questions whose hit
    flipped between the runs shown first).
    """
    if (llm_url is None) != (model is None):
        raise click.UsageError("a model judges with both --llm-url and --model")
    first: tuple[str, ...] = ()
    if pool_from:
        first = add_run_candidates(set_file, corpus, db_url, pool_from, depth).flipped
    if llm_url is not None and model is not None:
        _judge_with_model(set_file, corpus, llm_url, model, prompt, endpoint_options)
        return
    from retrieval_eval.cli.extras import require_extra

    require_extra("ui", "reval sets judge")
    from retrieval_eval.store.store import RunStore
    from retrieval_eval.web.address import parse_address

    where = parse_address(address, expose=False)
    try:
        from retrieval_eval.web.judging import JudgingDesk
        from retrieval_eval.web.serve import serve
    except ModuleNotFoundError as e:
        raise PluginError(
            f"reval sets judge needs the ui extra ({e.name} is missing): {install_extra('ui')}"
        ) from e
    desk = JudgingDesk(judge) if judge else JudgingDesk()
    key = desk.add(set_file, corpus, first=first)
    with RunStore.open(db_url) as store:

        def ready(url: str) -> None:
            click.echo(f"{url.rstrip('/')}/judge/{key}")
            click.echo(f"reval sets judge: judging {set_file} as {desk.judge} (Ctrl-C stops)")

        serve(store, where, on_ready=ready, desk=desk)


def _judge_with_model(
    set_file: Path, corpus: Path, url: str, model: str, prompt: Path | None,
    endpoint_options: dict[str, Any],
) -> None:  # fmt: skip
    from retrieval_eval.labelling.llm.job import judge_set, prepare_judging
    from retrieval_eval.labelling.llm.judge import JudgeOptions

    endpoint = model_endpoint(url, model, endpoint_options)
    job = prepare_judging(set_file, corpus, JudgeOptions(model), endpoint.prices, prompt)
    source, estimate = job.source, job.estimate
    if estimate.requests:
        click.echo(f"{source}: grading {estimate.requests} candidates: {tokens_line(estimate)}")
    report, spend = judge_set(job, set_file, endpoint)
    click.echo(f"{source}: {report.graded} of {report.candidates} candidates graded in {set_file}")
    if report.failures:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(report.failures.items()))
        click.echo(f"not graded: {kinds} (never counted as not relevant)")
    if report.missing_documents:
        click.echo(f"not graded: {report.missing_documents} candidates not in {corpus}")
    if report.stopped_by:
        click.echo(f"stopped: {report.stopped_by}; {report.not_asked} candidates not asked")
    click.echo(spend.summary())
    click.echo(
        f"the grades are advice until accepted: reval sets agreement {set_file} "
        f"--judge {source} --judge NAME --accept"
    )
