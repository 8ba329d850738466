"""``reval retrievers list`` and ``reval check-retriever TARGET``: thin layers over
``retrieval_eval.retrievers.resolve`` and ``retrieval_eval.retrievers.contract.check``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from retrieval_eval.cli import exit_codes
from retrieval_eval.cli.options import (
    config_option,
    format_option,
    read_token,
    timeout_option,
    token_env_option,
)

TARGET_HELP = """\b
TARGET is one of:
  grpc://HOST:PORT          plaintext gRPC
  grpcs://HOST[:PORT]       TLS (port 443 by default)
  dns:///HOST:PORT, ipv4:ADDR:PORT[,...], unix:PATH   raw gRPC targets
  NAME                      a [retrievers.NAME] entry of ./reval.toml
  PLUGIN[:ARG]              an installed retriever plugin, served in-process
"""


@click.group()
def retrievers() -> None:
    """Retrievers reval can resolve: reval.toml names and installed plugins."""


@retrievers.command("list")
@config_option
@format_option("text", "json")
def list_command(config_path: Path | None, fmt: str) -> None:
    """List named retrievers (reval.toml) and retriever plugins, with where each comes from.

    A reval.toml name wins over a plugin of the same name.
    """
    from retrieval_eval.retrievers.listing import list_retrievers

    infos = list_retrievers(config_path)
    if fmt == "json":
        rows = [
            {
                "name": i.name,
                "kind": i.kind,
                "source": i.source,
                "detail": i.detail,
                "shadowed": i.shadowed,
            }
            for i in infos
        ]
        click.echo(json.dumps({"retrievers": rows}, indent=2))
        return
    if not infos:
        click.echo("no named retrievers (no reval.toml here) and no retriever plugins installed")
        return
    headers = ("NAME", "KIND", "TARGET", "SOURCE")
    rows_text = [headers]
    for i in infos:
        source = f"{i.source} (hidden by reval.toml)" if i.shadowed else i.source
        rows_text.append((i.name, i.kind, i.detail, source))
    widths = [max(len(row[c]) for row in rows_text) for c in range(3)]
    for row in rows_text:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        click.echo("  ".join([*cells, row[3]]).rstrip())


@click.command("check-retriever", epilog=TARGET_HELP)
@click.argument("target")
@timeout_option
@token_env_option("Send the bearer token held in environment variable VAR.")
@config_option
@click.option(
    "--set",
    "set_source",
    metavar="SET",
    help="Probe with questions of this set (the first 20 it holds) instead of generic ones.",
)
@format_option("text", "json")
def check_retriever(
    target: str,
    timeout_s: float | None,
    token_env: str | None,
    config_path: Path | None,
    set_source: str | None,
    fmt: str,
) -> None:
    """Check a live retriever against the reval gRPC contract.

    Prints one line per check (PASS, WARN or FAIL, and why). Exits 0 when every check
    passes, 3 when any fails or the retriever cannot be reached, 2 for a bad TARGET or
    option. Health checking is part of the contract; server reflection is recommended, so
    a server without it passes with a WARN line, and so does a limit that no probe made
    the server cut (use --set with questions it answers well).
    """
    from retrieval_eval.report.safe_text import visible
    from retrieval_eval.retrievers.contract.check import check_contract
    from retrieval_eval.retrievers.contract.probes import PROBE_QUESTIONS, probe_questions

    token = read_token(token_env)
    questions = PROBE_QUESTIONS
    if set_source is not None:
        from retrieval_eval.questions.loading import load_question_set

        question_set = load_question_set(set_source)
        questions = probe_questions([q.question for q in question_set.questions])
        if not questions:
            raise click.BadParameter(
                f"{question_set.name!r} holds no question the contract allows", param_hint="--set"
            )
    results = asyncio.run(
        check_contract(
            target,
            timeout_s=timeout_s,
            token=token,
            config_path=config_path,
            questions=questions,
        )
    )
    failed = [r.name for r in results if not r.passed]
    if fmt == "json":
        checks = [
            {"name": r.name, "passed": r.passed, "warning": r.warning, "detail": r.detail}
            for r in results
        ]
        document = {"target": target, "passed": not failed, "checks": checks}
        click.echo(json.dumps(document, indent=2))
    else:
        for r in results:
            click.echo(f"{r.status} {r.name}: {visible(r.detail)}")
        warned = sum(r.warning for r in results)
        note = f" ({warned} with a warning)" if warned else ""
        if failed:
            click.echo(f"{len(failed)} of {len(results)} checks failed: {', '.join(failed)}")
        else:
            click.echo(f"all {len(results)} checks passed{note}")
    if failed:
        raise click.exceptions.Exit(exit_codes.FAILURE)
