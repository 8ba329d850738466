"""Entry point of ``reval``: lazy subcommands and the one place errors become exit codes."""

from __future__ import annotations

import difflib
import importlib
import sys
from typing import Any

import click

from retrieval_eval import __version__
from retrieval_eval.cli import exit_codes, signals
from retrieval_eval.errors import RevalError

#: Built-in commands: name -> "module:attribute". Imported only when used, so that
#: ``reval --help`` stays fast and one broken command cannot break the others.
COMMANDS: dict[str, str] = {
    "eval": "retrieval_eval.cli.eval:eval_command",
    "sets": "retrieval_eval.cli.sets:sets",
    "retrievers": "retrieval_eval.cli.retrievers:retrievers",
    "check-retriever": "retrieval_eval.cli.retrievers:check_retriever",
    "runs": "retrieval_eval.cli.runs:runs",
    "quickstart": "retrieval_eval.cli.quickstart:quickstart",
    "ui": "retrieval_eval.cli.ui:ui",
    "fusion": "retrieval_eval.cli.fusion:fusion",
    "diff": "retrieval_eval.cli.diff:diff_command",
    "serve": "retrieval_eval.cli.serve:serve_command",
}


def _plugin_commands() -> dict[str, str]:
    from retrieval_eval.plugins import COMMANDS as NAMESPACE
    from retrieval_eval.plugins import list_plugins

    return {p.name: p.target for p in list_plugins(NAMESPACE)}


class LazyGroup(click.Group):
    def _targets(self) -> dict[str, str]:
        return {**_plugin_commands(), **COMMANDS}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._targets())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = self._targets().get(cmd_name)
        if target is None:
            return None
        module_name, _, attr = target.partition(":")
        builtin = cmd_name in COMMANDS
        try:
            command = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as e:
            missing = isinstance(e, ModuleNotFoundError) and e.name == module_name
            if builtin and missing:
                return None  # not part of this build
            if builtin:
                raise
            message = f"plugin command {cmd_name!r} ({target}) failed to load: {e}"
            raise click.ClickException(message) from e
        return command  # type: ignore[no-any-return]

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's, but a mistyped command suggests the commands it is close to
        (click only suggests among commands registered up front)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3)
            if close:
                shown = " or ".join(repr(c) for c in close)
                ctx.fail(f"No such command {name!r}. Did you mean {shown}?")
        return super().resolve_command(ctx, args)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reval")
def cli() -> None:
    """reval: measure whether the right documents still come back.

    \b
    Exit codes: 0 success, 1 regression (with --fail-on-regression),
    2 bad input or usage, 3 retriever or infrastructure failure (incl. a run with
    more errors than --max-errors), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
    """


def main(argv: list[str] | None = None) -> Any:
    """Run the CLI; library errors become one-line messages and documented exit codes."""
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
