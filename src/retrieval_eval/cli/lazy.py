"""A click group whose subcommands are imported only when one of them runs.

Each subcommand is a ``"module:attribute"`` target with its one-line help written beside
it, so that ``--help`` lists every command without importing any (a test checks that the
line matches the command's own). A mistyped name suggests the commands it is close to
(click only suggests among commands registered up front).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple

import click


class Lazy(NamedTuple):
    """Where a subcommand lives (``"module:attribute"``) and its one-line help. (A named
    tuple: every command line builds this class, and a frozen dataclass costs several
    times more to create.)"""

    target: str
    help: str


class LazyGroup(click.Group):
    """A group whose ``lazy`` subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: Mapping[str, Lazy] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, Lazy] = dict(lazy or {})

    def lazy_commands(self, ctx: click.Context) -> dict[str, Lazy]:
        """The subcommands not yet imported; a subclass may add some (plugins)."""
        return self.lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        entry = self.lazy_commands(ctx).get(cmd_name)
        if entry is None:
            return None
        command = self.load(cmd_name, entry)
        if command is not None:
            self.add_command(command, cmd_name)
        return command

    def load(self, name: str, entry: Lazy) -> click.Command | None:
        module_name, _, attr = entry.target.partition(":")
        command = getattr(importlib.import_module(module_name), attr)
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry.target} is not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """As click's, but a command not yet imported is listed by its written help."""
        lazy = self.lazy_commands(ctx)
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max((len(n) for n in names), default=0)
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            if loaded is not None:
                if loaded.hidden:
                    continue
                rows.append((name, loaded.get_short_help_str(limit)))
            else:
                rows.append((name, _short(lazy[name].help, limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in self.list_commands(ctx):
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3)
            if close:
                shown = " or ".join(repr(c) for c in close)
                ctx.fail(f"No such command {name!r}. Did you mean {shown}?")
        return super().resolve_command(ctx, args)


def _short(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` the way click cuts a command's own help."""
    return click.Command(None, help=text).get_short_help_str(limit)
