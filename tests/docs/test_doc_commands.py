"""Every ``reval`` command and flag the README and the documentation pages mention exists:
in shell blocks, in other code blocks (a CI workflow's ``run:``) and in inline code; each
command path's ``--help`` runs. (The blocks themselves run in ``test_doc_blocks.py``.)"""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys

import click
import pytest
from support.env import REPO_ROOT
from support.plugin_suite import UNUSED_PLUGINS

from .doc_blocks import all_blocks, pages, reval_executable

BLOCKS = all_blocks()


def prose() -> str:
    """The text of every page outside its fenced blocks."""
    text = "\n".join(path.read_text(encoding="utf-8") for _, path in pages())
    return re.sub(r"```.*?```", "", text, flags=re.DOTALL)


def mentioned_commands() -> list[str]:
    """``reval ...`` in code blocks (any language, e.g. a CI YAML) and in inline code."""
    found: list[str] = []
    for block in BLOCKS:
        if block.is_shell:
            for line in block.commands():
                parts = [p.strip() for p in re.split(r"&&|\|\||[|;]", line)]
                found += [p.rstrip("&").strip() for p in parts if p.startswith("reval ")]
        else:  # e.g. a CI workflow: `- run: reval ...`
            found += re.findall(r"^\s*(?:-\s*)?run:\s*(reval\s.*)$", block.body, re.MULTILINE)
    found += re.findall(r"`(reval\s[^`]*)`", prose())
    return sorted(set(found))


def resolve(tokens: list[str]) -> tuple[list[str], click.Command]:
    """The subcommand path named by ``tokens`` and its click command."""
    from retrieval_eval.cli.main import cli

    command: click.Command = cli
    path: list[str] = []
    for token in tokens:
        if not isinstance(command, click.Group):
            break
        sub = command.get_command(click.Context(command), token)
        if sub is None:
            break
        command, path = sub, [*path, token]
    return path, command


def option_names(command: click.Command) -> set[str]:
    names = {"--help", "-h"}
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(param.opts, param.secondary_opts)
    return names


def all_option_names() -> set[str]:
    from retrieval_eval.cli.main import cli

    names: set[str] = set()

    def walk(command: click.Command) -> None:
        names.update(option_names(command))
        if isinstance(command, click.Group):
            for name in command.list_commands(click.Context(command)):
                sub = command.get_command(click.Context(command), name)
                if sub is not None:
                    walk(sub)

    walk(cli)
    return names | pytest_plugin_option_names()


@functools.cache
def pytest_plugin_option_names() -> set[str]:
    """The ``--reval-*`` options the pytest plugin adds, as ``pytest --help`` lists them."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider", *UNUSED_PLUGINS],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
    )
    return set(re.findall(r"(--reval-[a-z0-9-]+)", done.stdout))


@pytest.mark.parametrize("command", mentioned_commands())
def test_mentioned_command_exists_with_its_options(command: str) -> None:
    tokens = shlex.split(command)[1:]
    path, click_command = resolve(tokens)
    root_option = bool(tokens) and tokens[0].startswith("-")  # reval --version
    assert path or root_option, (
        f"the docs mention {command!r}, but {tokens[0]!r} is not a reval command"
    )
    rest = tokens[len(path) :]
    assert not (isinstance(click_command, click.Group) and rest and not rest[0].startswith("-")), (
        f"the docs mention {command!r}: no subcommand {rest[0]!r} in 'reval {' '.join(path)}'"
    )
    known = option_names(click_command)
    flags = [t.split("=", 1)[0] for t in rest if t.startswith("-") and t != "-"]
    unknown = [f for f in flags if f not in known]
    assert not unknown, f"the docs mention {command!r}: unknown option(s) {unknown}"
    returncode, stderr = _help(tuple(path))
    assert returncode == 0, stderr


@functools.cache
def _help(path: tuple[str, ...]) -> tuple[int, str]:
    """``reval PATH --help`` as a real process, once per command path."""
    done = subprocess.run(
        [reval_executable(), *path, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stderr


def test_every_flag_in_the_prose_exists() -> None:
    flags = set(re.findall(r"`(--[a-z][a-z0-9-]*)", prose()))
    missing = sorted(flags - all_option_names())
    assert not missing, f"the docs mention options no reval command has: {missing}"
