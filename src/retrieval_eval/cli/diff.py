"""``reval diff``: how far a change reaches on unlabelled questions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from retrieval_eval.cli.options import (
    config_option,
    count_option,
    file_option,
    format_option,
    rbo_p_option,
    read_token,
    timeout_option,
    token_env_option,
)
from retrieval_eval.cli.render import terminal_width, write_file
from retrieval_eval.records.parameters import DEFAULT_CONCURRENCY


@click.command("diff")
@click.option(
    "--questions",
    "questions_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    metavar="FILE",
    help="Questions to ask: a text file with one per line, or a set file (labels ignored).",
)
@click.option(
    "--retriever",
    "retrievers",
    multiple=True,
    required=True,
    metavar="RETRIEVER",
    help="Give twice: A (before) then B (after); grpc://HOST:PORT, a name or plugin:ARG.",
)
@click.option(
    "--k",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="Depth compared: the top K distinct documents of each ranking.",
)
@rbo_p_option
@count_option("--top", "How many of the questions that moved most to list.", default=10)
@file_option(
    "--write-moved",
    "Write the --top questions that moved most to FILE, one per line (ready to label).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=DEFAULT_CONCURRENCY,
    show_default=True,
    help="Calls in flight per retriever.",
)
@timeout_option
@token_env_option("Send the bearer token held in environment variable VAR to gRPC retrievers.")
@config_option
@format_option("text", "json", "markdown")
def diff_command(
    questions_path: Path,
    retrievers: tuple[str, ...],
    k: int,
    rbo_p: float,
    top: int,
    write_moved: Path | None,
    concurrency: int,
    timeout_s: float | None,
    token_env: str | None,
    config_path: Path | None,
    fmt: str,
) -> None:
    """Ask two retrievers the same questions and show how much their rankings differ
    (Jaccard and rank-biased overlap), with the questions that moved most. No labels
    needed: the questions that moved are the ones worth labelling."""
    from retrieval_eval.cli.progress import RichProgress, wants_progress
    from retrieval_eval.comparison.diff import diff_retrievers, read_questions

    if len(retrievers) != 2:
        raise click.UsageError(f"give --retriever exactly twice (A, then B), got {len(retrievers)}")
    questions = read_questions(questions_path)
    kwargs = {
        "k": k,
        "rbo_p": rbo_p,
        "concurrency": concurrency,
        "timeout_s": timeout_s,
        "config_path": config_path,
        "token": read_token(token_env),
    }
    if wants_progress(fmt):
        with RichProgress() as progress:
            result = diff_retrievers(questions, *retrievers, progress=progress, **kwargs)  # type: ignore[arg-type]
    else:
        result = diff_retrievers(questions, *retrievers, **kwargs)  # type: ignore[arg-type]
    if write_moved is not None:
        moved = result.moved(top)
        write_file(write_moved, "".join(q.question + "\n" for q in moved))
        click.echo(f"wrote {len(moved)} questions that moved most to {write_moved}", err=True)
    if fmt == "json":
        from retrieval_eval.report.diff import diff_to_dict

        click.echo(json.dumps(diff_to_dict(result), indent=2, ensure_ascii=False))
    elif fmt == "markdown":
        from retrieval_eval.report.diff import render_diff_markdown

        click.echo(render_diff_markdown(result, top=top), nl=False)
    else:
        from retrieval_eval.report.diff import render_diff_text

        text = render_diff_text(result, top=top, color=sys.stdout.isatty(), width=terminal_width())
        click.echo(text, nl=False)
