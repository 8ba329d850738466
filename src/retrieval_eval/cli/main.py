"""Entry point of ``reval``: lazy subcommands and the one place errors become exit codes."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from retrieval_eval.cli import exit_codes, signals
from retrieval_eval.cli.lazy import Lazy, LazyGroup
from retrieval_eval.errors import RevalError
from retrieval_eval.plugins import COMMANDS as PLUGIN_COMMANDS
from retrieval_eval.plugins import scan_plugins
from retrieval_eval.version import DISTRIBUTION, __version__

#: Built-in commands, imported only when used, so that ``reval --help`` stays fast and one
#: broken command cannot break the others.
COMMANDS: dict[str, Lazy] = {
    "eval": Lazy(
        "retrieval_eval.cli.eval:eval_command",
        "Evaluate every SET against every RETRIEVER and report hit rates and regressions.",
    ),
    "sets": Lazy(
        "retrieval_eval.cli.sets:sets",
        "Golden question sets: files (YAML, JSON, JSONL) and provider plugins.",
    ),
    "retrievers": Lazy(
        "retrieval_eval.cli.retrievers:retrievers",
        "Retrievers reval can resolve: reval.toml names and installed plugins.",
    ),
    "check-retriever": Lazy(
        "retrieval_eval.cli.retrievers:check_retriever",
        "Check a live retriever against the reval gRPC contract.",
    ),
    "runs": Lazy(
        "retrieval_eval.cli.runs:runs",
        "The run history: list, show, compare runs and follow their history; pin or accept "
        "baselines; prune; export.",
    ),
    "quickstart": Lazy(
        "retrieval_eval.cli.quickstart:quickstart",
        "Measure lexical, vector, hybrid and reranked retrieval on the shipped example data.",
    ),
    "ui": Lazy(
        "retrieval_eval.cli.ui:ui",
        "Browse the run store in a web browser: runs, a run, history, comparisons, and "
        "judge drafted sets (--judge DRAFT --corpus CORPUS) at /judge.",
    ),
    "fusion": Lazy(
        "retrieval_eval.cli.fusion:fusion",
        "Fused (hybrid) retrievers of reval.toml: tune their settings honestly.",
    ),
    "diff": Lazy(
        "retrieval_eval.cli.diff:diff_command",
        "Ask two retrievers the same questions and show how much their rankings differ "
        "(Jaccard and rank-biased overlap), with the questions that moved most.",
    ),
    "serve": Lazy(
        "retrieval_eval.cli.serve:serve_command",
        "Serve the retriever NAME (a reval.toml name, a plugin such as bm25:DIR, or an "
        "address) over gRPC with health checking and reflection, until Ctrl-C or SIGTERM.",
    ),
}


class RevalGroup(LazyGroup):
    """The built-in commands, then the commands plugins contribute through entry points
    (listed from their metadata; a plugin's code is imported only when its command runs)."""

    def lazy_commands(self, ctx: click.Context) -> dict[str, Lazy]:
        return {**plugin_commands(ctx), **self.lazy}

    def load(self, name: str, entry: Lazy) -> click.Command | None:
        builtin = name in self.lazy
        module_name = entry.target.partition(":")[0]
        try:
            return super().load(name, entry)
        except (ImportError, AttributeError, TypeError) as e:
            missing = isinstance(e, ModuleNotFoundError) and e.name == module_name
            if builtin and missing:
                return None  # not part of this build
            if builtin:
                raise
            message = f"plugin command {name!r} ({entry.target}) failed to load: {e}"
            raise click.ClickException(message) from e


def plugin_commands(ctx: click.Context) -> dict[str, Lazy]:
    """Commands from the ``retrieval_eval.commands`` entry points, by name, with their
    distribution's summary as help; nothing is imported (read once per invocation)."""
    meta = ctx.find_root().meta
    if PLUGIN_COMMANDS not in meta:
        found = scan_plugins(PLUGIN_COMMANDS)
        meta[PLUGIN_COMMANDS] = {
            p.name: Lazy(p.target, f"{p.summary} [plugin {p.distribution}]") for p in found
        }
    commands: dict[str, Lazy] = meta[PLUGIN_COMMANDS]
    return commands


@click.group(
    cls=RevalGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(
    __version__,
    prog_name="reval",
    package_name=DISTRIBUTION,
    message="%(prog)s, version %(version)s (distribution %(package)s)",
)
def cli() -> None:
    """reval: measure whether the right documents still come back.

    \b
    Exit codes: 0 success, 1 regression (with --fail-on-regression),
    2 bad input or usage, 3 retriever or infrastructure failure (incl. a run with
    more errors than --max-errors), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
    """


def main(argv: list[str] | None = None) -> Any:
    """Run the CLI; library errors become one-line messages and documented exit codes."""
    # gRPC's core logs connection events (a server's GOAWAY while a call is in flight) on
    # standard error at INFO: the CLI reports failures itself, so only gRPC's own errors
    # get through unless the user sets GRPC_VERBOSITY (read when grpc is first imported).
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    try:
        return cli.main(args=argv, prog_name="reval", standalone_mode=False)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(exit_codes.BAD_INPUT)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("reval: interrupted", err=True)
        sys.exit(exit_codes.for_signal(signals.received()))
    except RevalError as e:
        from retrieval_eval.report.safe_text import visible

        click.echo(f"reval: error: {visible(str(e), keep_newlines=True)}", err=True)
        sys.exit(exit_codes.for_error(e))
