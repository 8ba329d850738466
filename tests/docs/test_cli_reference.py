"""The CLI reference (docs/reference/cli.md) cannot drift from the commands: it is the page
``tools/cli_reference.py`` writes, whatever the machine; every command and option of the
live click tree (walked here through click's own API, not the generator's walk) has its
section and its row in it; every command and option has help to show; and docs/ as a
whole mentions every command and option."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from support.env import REPO_ROOT
from support.tools import load_tool

PAGE = REPO_ROOT / "docs" / "reference" / "cli.md"
TOOL = REPO_ROOT / "tools" / "cli_reference.py"

cli_reference = load_tool("cli_reference")


def _walk() -> dict[str, tuple[click.Command, list[click.Option], list[str]]]:
    """Command path -> the command, its options (not hidden, help option apart) and the
    help option's flags; each context made the way click makes it for a real invocation
    (``make_context``, so each command's context settings apply)."""
    from retrieval_eval.cli.main import cli

    found: dict[str, tuple[click.Command, list[click.Option], list[str]]] = {}

    def visit(command: click.Command, ctx: click.Context) -> None:
        help_option = command.get_help_option(ctx)
        options = [
            p for p in command.get_params(ctx)
            if isinstance(p, click.Option) and not p.hidden and p is not help_option
        ]  # fmt: skip
        found[ctx.command_path] = (command, options, help_option.opts if help_option else [])
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    visit(sub, sub.make_context(name, [], parent=ctx, resilient_parsing=True))

    visit(cli, cli.make_context("reval", [], resilient_parsing=True))
    return found


TREE = _walk()


def _sections(page: str) -> dict[str, str]:
    """Heading text -> the text under it, up to the next heading (fenced blocks are not
    searched for headings: a help example may hold a ``#`` line)."""
    sections: dict[str, list[str]] = {"": []}
    current, fenced = "", False
    for line in page.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"#{1,6} (.+)$", line)
        if heading:
            current = heading.group(1).strip()
            sections[current] = []
        else:
            sections[current].append(line)
    return {title: "\n".join(lines) for title, lines in sections.items()}


def _documented_flags(section: str) -> set[str]:
    """The flags named in the first cell of the section's option rows (a code element)."""
    flags: set[str] = set()
    for row in re.finditer(r"^\| <code[^>]*>([^<]+)</code> \|", section, flags=re.MULTILINE):
        text = html.unescape(row.group(1))
        flags.update(t for t in re.split(r"[\s,/]+", text) if t.startswith("-"))
    return flags


def undocumented(page: str) -> list[str]:
    """Each command without its own section, each option without a row in its command's
    section, each help flag not said once in the page."""
    sections = _sections(page)
    missing = []
    for path, (_, options, help_flags) in TREE.items():
        if path not in sections:
            missing.append(f"{path} (no section)")
            continue
        rows = _documented_flags(sections[path])
        flags = [f for o in options for f in (*o.opts, *o.secondary_opts)]
        missing += [f"{path} {flag}" for flag in flags if flag not in rows]
        missing += [f"{path} {flag}" for flag in help_flags if f"`{flag}`" not in page]
    return missing


def test_the_checked_in_page_is_the_generated_one():
    done = subprocess.run([sys.executable, str(TOOL), "--check"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_check_fails_on_a_stale_page_with_one_line(tmp_path):
    stale = tmp_path / "cli.md"
    stale.write_text(PAGE.read_text(encoding="utf-8").replace("Report format.", "Format."))
    done = subprocess.run([sys.executable, str(TOOL), "--check", "--output", str(stale)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{stale} is out of date: run python tools/cli_reference.py"
    ]


def test_the_page_does_not_depend_on_the_terminal_home_or_working_directory(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "COLUMNS": "37", "LINES": "5", "TERM": "dumb"}
    env.pop("REVAL_HOME", None)
    out = tmp_path / "cli.md"
    subprocess.run([sys.executable, str(TOOL), "--output", str(out)], cwd=tmp_path, env=env,
                   check=True, timeout=120)  # fmt: skip
    assert out.read_bytes() == PAGE.read_bytes()


def test_every_command_and_option_of_the_live_tree_is_in_the_page():
    assert {"reval", "reval eval", "reval bm25 index", "reval dense serve"} <= set(TREE)
    assert undocumented(PAGE.read_text(encoding="utf-8")) == []


def test_the_completeness_check_finds_a_missing_option_and_a_missing_command():
    page = PAGE.read_text(encoding="utf-8")
    row = re.compile(r"^\| <code[^>]*>--max-errors [^\n]*\n", flags=re.MULTILINE)
    without_row = row.sub("", page, count=1)
    assert without_row != page
    assert undocumented(without_row) == ["reval eval --max-errors"]

    without_section = page.replace("\n#### reval sets schema\n", "\n#### reval sets schemas\n")
    assert without_section != page
    assert undocumented(without_section) == ["reval sets schema (no section)"]

    without_help = page.replace("`-h`, `--help`", "`--help`")
    assert undocumented(without_help) == [f"{path} -h" for path in TREE]


@pytest.mark.parametrize("path", sorted(TREE))
def test_every_command_and_option_has_help(path):
    command, options, _ = TREE[path]
    assert (command.help or "").strip(), f"{path} has no help"
    assert [o.opts[0] for o in options if not (o.help or "").strip()] == []


def test_docs_mention_every_command_and_option():
    """The other direction from the README's doc test: each command path and each of its
    options is named in some page of docs/ (the generated reference counts)."""
    pages = [p.read_text(encoding="utf-8") for p in sorted((REPO_ROOT / "docs").rglob("*.md"))]
    missing = []
    for path, (_, options, _) in TREE.items():
        with_path = [p for p in pages if re.search(rf"(?<![\w-]){re.escape(path)}(?![\w-])", p)]
        if not with_path:
            missing.append(path)
            continue
        for flag in (f for o in options for f in (*o.opts, *o.secondary_opts)):
            flag_re = rf"(?<![\w-]){re.escape(flag)}(?![\w-])"
            if not any(re.search(flag_re, p) for p in with_path):
                missing.append(f"{path} {flag}")
    assert missing == []


def test_defaults_computed_from_the_environment_are_written_symbolically(tmp_path):
    here = Path.cwd()
    option = click.Option(["--home"], default=str(Path.home() / ".reval" / "runs.sqlite"))
    local = click.Option(["--cache"], default=str(here / "cache"))
    computed = click.Option(["--user"], default=lambda: os.environ.get("USER", "?"))
    told = click.Option(["--jobs"], default=os.cpu_count(), show_default="the CPU count")
    texts = [
        cli_reference.default_text(o, o.to_info_dict()) for o in (option, local, computed, told)
    ]
    assert texts == [
        "`~/.reval/runs.sqlite`",
        "`./cache`",
        "computed when the command runs",
        "the CPU count",
    ]


def test_help_text_is_escaped_for_markdown_and_keeps_its_examples():
    assert cli_reference.escape("ids '<doc id>#<n>' *x* a_b [1] a|b `--k 1|3`") == (
        "ids '&lt;doc id&gt;#&lt;n&gt;' \\*x\\* a\\_b \\[1\\] a&#124;b `--k 1|3`"
    )
    assert cli_reference.escape("# not a heading") == "\\# not a heading"
    blocks = cli_reference.help_blocks(
        """First line
        goes on.

        \b
        Example:
          reval eval --set s.yaml
        \f
        Not help."""
    )
    assert blocks == [
        "First line goes on.",
        "```text\nExample:\n  reval eval --set s.yaml\n```",
    ]


def test_an_option_row_says_required_repeatable_and_its_environment_variable():
    command = click.Command(
        "x",
        params=[
            click.Option(["--url"], envvar="REVAL_X_URL", required=True, help="Where."),
            click.Option(["--tag"], multiple=True, metavar="T", help="Tags."),
            click.Option(["--fast/--slow"], default=True, help="Speed."),
        ],
    )
    ctx = click.Context(command, info_name="x")
    rows = cli_reference.options_table(ctx, command)[2:]
    assert rows == [
        '| <code style="white-space: nowrap">--url TEXT</code> | text, **required** |  '
        "| Where. Environment variable: `REVAL_X_URL`. |",
        '| <code style="white-space: nowrap">--tag T</code> | text, repeatable |  | Tags. |',
        '| <code style="white-space: nowrap">--fast / --slow</code> | flag | `--fast` | Speed. |',
    ]
