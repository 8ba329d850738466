"""Write docs/reference/cli.md from reval's click command tree, so that the CLI reference
cannot drift from the commands.

Every group and command, the built-in ones and those the reference plugins contribute
(``bm25``, ``dense``: they must be installed), in the order ``--help`` lists them, depth
first; each under its own heading (so it gets an anchor) with its usage line, its help,
its arguments, and a table of its options: flags and metavar, type (choices, range),
default, environment variable, required or repeatable, help. The page depends on the
command tree alone: not on the terminal's width, the home or working directory, or the
other plugins a machine happens to have installed. ``tests/docs/test_cli_reference.py``
fails when the checked-in page and this output differ.

    python tools/cli_reference.py          # rewrite docs/reference/cli.md
    python tools/cli_reference.py --check  # exit 1 when it is out of date
"""

from __future__ import annotations

import argparse
import html
import inspect
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reference" / "cli.md"
#: The distributions whose ``retrieval_eval.commands`` are documented here (normalised
#: names); other installed plugins' commands are theirs to document.
REFERENCE_PLUGINS = ("reval-ir-bm25", "reval-ir-dense")


def walk() -> Iterator[tuple[click.Context, click.Command]]:
    """``(context, command)`` for ``reval`` and every command below it, depth first, in
    the order ``--help`` lists them; hidden commands are left out, as ``--help`` does."""
    from retrieval_eval.cli.main import COMMANDS, cli

    root = click.Context(cli, info_name="reval", **cli.context_settings)
    yield root, cli
    plugins = _reference_plugin_commands()
    for name in cli.list_commands(root):
        if name not in COMMANDS and name not in plugins:
            continue  # another distribution's plugin command
        yield from _walk_below(root, cli, name)


def _walk_below(
    parent: click.Context, group: click.Group, name: str
) -> Iterator[tuple[click.Context, click.Command]]:
    command = group.get_command(parent, name)
    if command is None or command.hidden:
        return
    context = click.Context(command, info_name=name, parent=parent)
    yield context, command
    if isinstance(command, click.Group):
        for sub in command.list_commands(context):
            yield from _walk_below(context, command, sub)


def _reference_plugin_commands() -> set[str]:
    from retrieval_eval.plugins import COMMANDS, scan_plugins

    found: dict[str, set[str]] = {}
    for plugin in scan_plugins(COMMANDS):
        found.setdefault(_normalised(plugin.distribution), set()).add(plugin.name)
    missing = [d for d in REFERENCE_PLUGINS if d not in found]
    if missing:
        raise SystemExit(
            f"cli_reference: {', '.join(missing)} not installed: "
            "pip install -e ./plugins/bm25 -e ./plugins/dense"
        )
    return {name for d in REFERENCE_PLUGINS for name in found[d]}


def _normalised(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


# --- Markdown --------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`[^`\n]+`)")
_SPECIAL = str.maketrans(
    {
        "\\": "\\\\",
        "*": "\\*",
        "_": "\\_",
        "[": "\\[",
        "]": "\\]",
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "|": "&#124;",
    }
)


def escape(text: str) -> str:
    """Prose as Markdown that shows exactly ``text``: code spans written in the help are
    kept, everything else that Markdown or HTML would interpret is escaped (``|`` as an
    entity, so that the text is safe inside a table cell)."""
    parts = _CODE_SPAN.split(text)
    out = [p if p.startswith("`") else p.translate(_SPECIAL) for p in parts]
    joined = "".join(out)
    # A paragraph that opens like a heading, a list or a quote is not one.
    return re.sub(r"^(#|[-+]\s|\d+\.\s)", r"\\\1", joined)


def code(text: str) -> str:
    """``text`` as an inline code span; safe in a table cell too (Python-Markdown, which
    MkDocs uses, does not split a row at a ``|`` inside a code span)."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def help_blocks(text: str) -> list[str]:
    """click's help text as Markdown blocks: paragraphs are re-flowed into one line (click
    re-wraps them too); a paragraph that opens with ``\\b`` keeps its lines, as a text
    block; anything after ``\\f`` is not help (click cuts it too)."""
    text = inspect.cleandoc(text).partition("\f")[0]
    blocks = []
    for paragraph in re.split(r"\n\s*\n", text):
        if paragraph.startswith("\b"):
            lines = paragraph[1:].strip("\n")
            if lines.strip():
                blocks.append(f"```text\n{textwrap.dedent(lines).rstrip()}\n```")
        elif paragraph.strip():
            blocks.append(escape(" ".join(line.strip() for line in paragraph.splitlines())))
    return blocks


def anchor(title: str) -> str:
    """The id Python-Markdown's toc gives a heading (its default ``slugify``)."""
    slug = re.sub(r"[^\w\s-]", "", title).strip().lower()
    return re.sub(r"[-\s]+", "-", slug)


# --- Parameters -------------------------------------------------------------------------


def type_text(info: dict[str, Any]) -> str:
    """What a value must be: the choices, a range, a kind of path, or the type's name."""
    kind = info["param_type"]
    if kind == "Choice":
        return "one of " + ", ".join(code(str(c)) for c in info["choices"])
    if kind in ("IntRange", "FloatRange"):
        return ("integer" if kind == "IntRange" else "number") + " " + _range(info)
    if kind == "Path":
        what = {"file": "file", "directory": "directory"}.get(info["name"], "path")
        notes = [n for n, on in (("must exist", info["exists"]), ("`-` for standard I/O",
                 info["allow_dash"])) if on]  # fmt: skip
        return what + (f" ({', '.join(notes)})" if notes else "")
    return {"text": "text", "integer": "integer", "float": "number", "boolean": "boolean"}.get(
        info["name"], escape(info["name"])
    )


def _range(info: dict[str, Any]) -> str:
    low, high = info["min"], info["max"]
    if low is not None and high is not None:
        left = "(" if info["min_open"] else "["
        right = ")" if info["max_open"] else "]"
        return f"in {left}{low}, {high}{right}"
    if low is not None:
        return f"{'&gt;' if info['min_open'] else '≥'} {low}"
    if high is not None:
        return f"{'&lt;' if info['max_open'] else '≤'} {high}"
    return ""


def default_text(param: click.Parameter, info: dict[str, Any]) -> str:
    """The default as ``--help`` would show it with ``show_default``, or ``""`` for none.
    A default text the command gives itself (``show_default="..."``) wins; a default
    computed when the command runs is said to be so, never evaluated here; a path under
    the home or the working directory is written ``~/...`` or ``./...``."""
    shown = getattr(param, "show_default", None)
    if isinstance(shown, str):
        return escape(shown)
    default = param.default
    if callable(default):
        return "computed when the command runs"
    value = info["default"]
    if value is None or value == () or value == []:
        return ""
    if isinstance(param, click.Option) and param.is_flag:
        if param.secondary_opts:
            return code((param.opts if value else param.secondary_opts)[-1])
        return code(str(value)) if value else ""
    values = value if isinstance(value, list | tuple) else [value]
    return ", ".join(code(symbolic(str(v))) for v in values)


def symbolic(value: str) -> str:
    """``value`` with the home and working directories written ``~`` and ``.``."""
    for directory, symbol in ((Path.cwd(), "."), (Path.home(), "~")):
        prefix = str(directory)
        if len(prefix) > 1 and (value == prefix or value.startswith(prefix + os.sep)):
            return symbol + value[len(prefix) :]
    return value


def option_name(param: click.Option) -> str:
    """The flags as ``--help`` lists them, with the metavar of an option that takes a value
    (a choice's values are in the type column instead)."""
    names = ", ".join(param.opts)
    if param.secondary_opts:
        names += " / " + ", ".join(param.secondary_opts)
    if param.is_flag or param.count or isinstance(param.type, click.Choice):
        return unbroken_code(names)
    metavar = param.metavar or param.type.name.split()[0].upper()
    return unbroken_code(f"{names} {metavar}")


def unbroken_code(text: str) -> str:
    """``text`` as code that a narrow table column does not break at its hyphens (Material
    lets code wrap anywhere, which splits ``--flag-name`` mid-word): raw HTML, escaped,
    ``|`` as an entity so that the table row stays whole."""
    escaped = html.escape(text, quote=False).replace("|", "&#124;")
    return f'<code style="white-space: nowrap">{escaped}</code>'


def notes(param: click.Option, ctx: click.Context) -> tuple[list[str], list[str]]:
    """What the type column adds (required, repeatable) and what the description adds
    (the environment variable read)."""
    kind = []
    if param.required:
        kind.append("**required**")
    if param.multiple or param.count:
        kind.append("repeatable")
    described = []
    envvars = param.envvar
    if envvars is None and ctx.auto_envvar_prefix and param.allow_from_autoenv and param.name:
        envvars = f"{ctx.auto_envvar_prefix}_{param.name.upper()}"
    if envvars:
        names = [envvars] if isinstance(envvars, str) else list(envvars)
        described.append("Environment variable: " + ", ".join(code(n) for n in names) + ".")
    return kind, described


def options_table(ctx: click.Context, command: click.Command) -> list[str]:
    help_option = command.get_help_option(ctx)
    rows = []
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option) or param.hidden or param is help_option:
            continue
        info = param.to_info_dict()
        kind_notes, described_notes = notes(param, ctx)
        kind = ", ".join(
            ["flag" if param.is_flag or param.count else type_text(info["type"]), *kind_notes]
        )
        described = " ".join([escape(param.help or ""), *described_notes]).strip()
        default = default_text(param, info)
        rows.append(f"| {option_name(param)} | {kind} | {default} | {described} |")
    if not rows:
        return []
    return ["| Option | Type | Default | Description |", "| --- | --- | --- | --- |", *rows]


def arguments_table(ctx: click.Context, command: click.Command) -> list[str]:
    rows = []
    for param in command.get_params(ctx):
        if not isinstance(param, click.Argument):
            continue
        info = param.to_info_dict()
        metavar = " ".join(param.get_usage_pieces(ctx))
        count = "any number" if param.nargs == -1 else (f"{param.nargs} values"
                                                         if param.nargs > 1 else "one")  # fmt: skip
        required = "required" if param.required else "optional"
        rows.append(f"| {code(metavar)} | {type_text(info['type'])} | {count}, {required} |")
    if not rows:
        return []
    return ["| Argument | Type | Takes |", "| --- | --- | --- |", *rows]


# --- The page ---------------------------------------------------------------------------


def section(ctx: click.Context, command: click.Command, children: list[click.Context]) -> str:
    """One command's part of the page: heading, usage, help, arguments, options and, for a
    group, its commands with links."""
    title = ctx.command_path
    usage = " ".join([title, *command.collect_usage_pieces(ctx)])
    parts = [f"{'#' * min(len(title.split()) + 1, 6)} {title}", f"```text\n{usage}\n```"]
    parts += help_blocks(command.help or command.short_help or "")
    arguments = arguments_table(ctx, command)
    if arguments:
        parts.append("**Arguments**\n\n" + "\n".join(arguments))
    options = options_table(ctx, command)
    if options:
        parts.append("**Options**\n\n" + "\n".join(options))
    if children:
        links = [
            f"- [{c.command_path}](#{anchor(c.command_path)}): "
            + escape(c.command.get_short_help_str(limit=10_000))
            for c in children
        ]
        parts.append("**Commands**\n\n" + "\n".join(links))
    return "\n\n".join(parts)


def render() -> str:
    """The whole page."""
    walked = list(walk())
    head = [
        "<!-- Generated by tools/cli_reference.py from the click commands: edit their help,",
        "     then run `python tools/cli_reference.py`. A test fails when this page is stale. -->",
        "",
        "# Command-line reference",
        "",
        "Every `reval` command with its arguments and options, including the commands of the",
        "reference plugins (`reval bm25`, `reval dense`), as `reval COMMAND --help` shows them.",
        "Every command also takes `-h`, `--help`: show its help and exit.",
    ]
    body = [
        section(ctx, command, [c for c, _ in walked if c.parent is ctx]) for ctx, command in walked
    ]
    return "\n".join(head) + "\n\n" + "\n\n".join(body) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    parser.add_argument("--output", type=Path, default=PAGE, help="the page (default: %(default)s)")
    args = parser.parse_args()
    wanted = render()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != wanted:
            print(f"{_shown(args.output)} is out of date: run python tools/cli_reference.py")
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(wanted, encoding="utf-8", newline="\n")
    return 0


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
