"""The CLI reference (docs/reference/cli.md) cannot drift from the commands: it is what cog
writes from ``reval COMMAND --help`` (click's own help), whatever the machine; every command
and option of the live click tree (walked here through click's own API) has its section and
its flag in it; every command and option has help to show; and docs/ as a whole mentions
every command and option."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import click
import pytest
from support.env import REPO_ROOT

PAGE = REPO_ROOT / "docs" / "reference" / "cli.md"
COG = [sys.executable, "-m", "cogapp"]


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


def undocumented(page: str) -> list[str]:
    """Each command without its own section, each option whose flags its command's section
    does not show, each help flag not said once in the page."""
    sections = _sections(page)
    missing = []
    for path, (_, options, help_flags) in TREE.items():
        if path not in sections:
            missing.append(f"{path} (no section)")
            continue
        shown = sections[path]
        flags = [f for o in options for f in (*o.opts, *o.secondary_opts)]
        missing += [
            f"{path} {flag}"
            for flag in flags
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", shown)
        ]
        missing += [f"{path} {flag}" for flag in help_flags if f"`{flag}`" not in page]
    return missing


def test_the_checked_in_page_is_cogs_output():
    done = subprocess.run([*COG, "--check", "--diff", "--check-fail-msg",
                           "run: cog -r docs/reference/cli.md", str(PAGE)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_check_fails_on_a_stale_page(tmp_path):
    stale = tmp_path / "cli.md"
    stale.write_text(PAGE.read_text(encoding="utf-8").replace("Report format.", "Format."))
    assert stale.read_text(encoding="utf-8") != PAGE.read_text(encoding="utf-8")
    done = subprocess.run([*COG, "--check", str(stale)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode != 0
    assert "Check failed" in done.stdout + done.stderr


def test_the_page_does_not_depend_on_the_terminal_home_or_working_directory(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "COLUMNS": "37", "LINES": "5", "TERM": "dumb"}
    env.pop("REVAL_HOME", None)
    page = tmp_path / "cli.md"
    shutil.copy(PAGE, page)
    subprocess.run([*COG, "-r", str(page)], cwd=tmp_path, env=env, check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    assert page.read_bytes() == PAGE.read_bytes()


def test_every_command_and_option_of_the_live_tree_is_in_the_page():
    assert {"reval", "reval eval", "reval bm25 index", "reval dense serve"} <= set(TREE)
    assert undocumented(PAGE.read_text(encoding="utf-8")) == []


def test_the_completeness_check_finds_a_missing_option_and_a_missing_command():
    page = PAGE.read_text(encoding="utf-8")
    section = _sections(page)["reval eval"]
    without_flag = page.replace(section, section.replace("--max-errors", "--max-mistakes"))
    assert without_flag != page
    assert undocumented(without_flag) == ["reval eval --max-errors"]

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
