"""``reval sets draft``: a set drafted by pooling retrievers' top documents.

A thin wrapper over ``retrieval_eval.labelling``; attached to the ``sets`` group.
"""

from __future__ import annotations

from pathlib import Path

import click

from retrieval_eval.cli.options import (
    config_option,
    db_option,
    read_token,
    timeout_option,
    token_env_option,
)
from retrieval_eval.cli.sets.pool_from import add_run_candidates, pool_from_option
from retrieval_eval.labelling.pool import DEFAULT_POOL_DEPTH, PoolOptions


@click.command("draft", short_help="Draft a set by pooling retrievers' top documents.")
@click.argument("questions", required=False, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--corpus",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Corpus JSONL (BEIR style; .gz ok): titles and snippets of the candidates.",
)
@click.option(
    "--retriever",
    "retrievers",
    multiple=True,
    help="Retriever to pool (address, reval.toml name or plugin, as for reval eval); repeat.",
)
@pool_from_option
@click.option(
    "--depth",
    type=int,
    default=None,
    help=f"Distinct documents pooled from each retriever [default: {DEFAULT_POOL_DEPTH}; "
    "with --extend: the set's pool depth].",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The draft to write (.yaml). Not with --extend (the set is updated in place).",
)
@click.option(
    "--extend",
    "extend",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Add the candidates these retrievers (or a changed corpus) bring to this draft, "
    "keeping every judgement; questions with new candidates need review again.",
)
@click.option("--name", help="The set's name [default: the output file's name].")
@click.option("--blind", is_flag=True, help="With a set file as QUESTIONS: leave its labels "
              "out, so every candidate is judged afresh (then compare: reval sets agreement "
              "DRAFT --reference SET).")  # fmt: skip
@timeout_option
@token_env_option("Send the bearer token held in environment variable VAR to gRPC retrievers.")
@config_option
@db_option
def draft_command(
    questions: Path | None,
    corpus: Path,
    retrievers: tuple[str, ...],
    depth: int | None,
    out: Path | None,
    extend: Path | None,
    name: str | None,
    blind: bool,
    timeout_s: float | None,
    token_env: str | None,
    config_path: Path | None,
    pool_from: tuple[str, ...],
    db_url: str | None,
) -> None:
    """Draft a set from QUESTIONS (a text file, one question per line, or a set file):
    every retriever is asked for each question, and the union of their top --depth
    distinct documents becomes the question's candidates, to judge with reval sets
    judge. A draft is never evaluated before it is judged.

    With --extend SET --pool-from RUN, the candidates added are the documents in the top
    --depth of stored runs of SET that carry no judgment in it (no retriever is asked).
    """
    from retrieval_eval.labelling.draft import draft_set, extend_draft, read_draft_questions
    from retrieval_eval.labelling.form_suggestion import form_suggester

    options = PoolOptions(
        depth=depth if depth is not None else DEFAULT_POOL_DEPTH,
        timeout_s=timeout_s,
        config_path=config_path,
        token=read_token(token_env),
    )
    if not retrievers and not pool_from:
        raise click.UsageError("give at least one --retriever (or --extend SET --pool-from RUN)")
    if extend is not None:
        if questions is not None or out is not None:
            raise click.UsageError("--extend updates the set in place: no QUESTIONS or --out")
        if retrievers:
            summary = extend_draft(extend, corpus, retrievers, options if depth else None)
            click.echo(
                f"{summary.path}: {summary.new_candidates} new candidates; "
                f"{summary.to_review} of {summary.questions} questions to judge"
            )
        if pool_from:
            add_run_candidates(extend, corpus, db_url, pool_from, options.depth)
        return
    if pool_from:
        raise click.UsageError("--pool-from adds to a set's labels: give --extend SET")
    if not retrievers:
        raise click.UsageError("give at least one --retriever")
    if questions is None or out is None:
        raise click.UsageError("give QUESTIONS and --out (or --extend SET)")
    summary = draft_set(
        read_draft_questions(questions, blind=blind),
        corpus,
        retrievers,
        out,
        options,
        name=name,
        suggest=form_suggester(corpus),
    )
    click.echo(
        f"{summary.path}: {summary.questions} questions, {summary.candidates} candidates "
        f"({summary.candidates / summary.questions:.1f} per question); judge them with "
        f"reval sets judge {summary.path} --corpus {corpus}"
    )
