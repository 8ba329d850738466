"""The fenced blocks of the README and the documentation pages, and their doctest markers
(see test_doc_blocks.py for the rules)."""

from __future__ import annotations

import functools
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from support.env import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
MKDOCS_YML = REPO_ROOT / "mkdocs.yml"
#: Pages written by a tool from the code (cog, from --help), checked by their own test.
GENERATED = frozenset({"reference/cli.md"})
#: Folders whose pages stand alone: each says at its top what it needs and runs in a clean
#: directory of its own in the doc test, with only the files it writes.
STANDALONE = ("how-to/", "tutorials/")
SHARED = "shared"
SHELL_LANGUAGES = {"console", "bash", "sh", "shell"}
KINDS = "run|skip|file|quickstart-output"
MARKER = re.compile(rf"^<!--\s*doctest:\s*(?P<kind>{KINDS})\b\s*(?P<arg>.*?)\s*-->$")
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
PORT = re.compile(r"\b5005\d\b")
ADDRESS = re.compile(r"127\.0\.0\.1:(\d+)")
EXAMPLE_DATABASE_URL = "postgresql://reval@db.internal:5432/reval"
# The core first: pip before 23.3 (a fresh venv's on Debian 12) cannot resolve a plugin's
# dependency on reval-ir against an editable `.[extras]` named after it.
INSTALL_COMMAND = (
    "pip install -e '.[ui,lint]' -e ./plugins/bm25 -e ./plugins/dense && reval quickstart"
)
TEST_COMMAND = (
    "pip install -e '.[test]' -e ./plugins/bm25 -e ./plugins/dense "
    "-e ./examples/question-set-provider && pytest"
)


@dataclass(frozen=True, slots=True)
class Block:
    page: str  # "README.md", or a page's path under docs/ ("how-to/scale.md")
    line: int  # 1-based line of the opening fence
    language: str
    body: str
    kind: str | None  # run | skip | file | None
    argument: str

    @property
    def where(self) -> str:
        """``page:line``, for messages and test ids."""
        return f"{self.page}:{self.line}"

    @property
    def is_shell(self) -> bool:
        return self.language in SHELL_LANGUAGES

    def commands(self) -> list[str]:
        """The ``$ `` lines of a console block (continuations joined), else every line."""
        lines, current, prompted = [], "", self.language == "console"
        for raw in self.body.splitlines():
            if not current and prompted and not raw.startswith("$ "):
                continue  # sample output
            text = raw[2:] if not current and prompted else raw
            current = f"{current} {text.strip()}" if current else text.strip()
            if current.endswith("\\"):
                current = current[:-1].rstrip()
                continue
            if current and not current.startswith("#"):
                lines.append(current)
            current = ""
        return lines

    def sample_output(self) -> list[str]:
        """The lines a console block shows as output (not commands or continuations)."""
        shown, continued = [], False
        for raw in self.body.splitlines():
            if raw.startswith("$ ") or continued:
                continued = raw.rstrip().endswith("\\")
                continue
            if raw.strip():
                shown.append(raw)
        return shown if self.language == "console" else []


def _normalize(line: str) -> str:
    return " ".join(line.split())


def missing_output(shown: list[str], output: str) -> list[str]:
    """Shown lines that no output line matches; ``...`` stands for any text."""
    printed = [_normalize(line) for line in output.splitlines()]
    missing = []
    for line in shown:
        wanted = _normalize(line)
        if wanted == "...":
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in wanted.split("...")))
        if not any(pattern.fullmatch(p) for p in printed):
            missing.append(line)
    return missing


def workspace_of(page: str) -> str:
    """Which working directory a page's blocks run in: its own, or the shared one."""
    return page if page.startswith(STANDALONE) else SHARED


def parse_blocks(text: str, page: str = "README.md") -> list[Block]:
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence is None:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        previous = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(previous.strip())
        blocks.append(
            Block(
                page=page,
                line=start + 1,
                language=fence["lang"],
                body="\n".join(body) + "\n",
                kind=marker["kind"] if marker else None,
                argument=marker["arg"] if marker else "",
            )
        )
        i += 1
    return blocks


def _nav_pages(nav: object) -> Iterator[str]:
    """The page paths of a MkDocs ``nav``, in order (sections are walked depth first)."""
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from _nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _nav_pages(value)


@functools.cache
def nav_pages() -> tuple[str, ...]:
    """The documentation pages in the order of the site's navigation (paths under docs/)."""
    config = yaml.safe_load(MKDOCS_YML.read_text(encoding="utf-8"))
    return tuple(page for page in _nav_pages(config["nav"]) if page.endswith(".md"))


@functools.cache
def pages() -> tuple[tuple[str, Path], ...]:
    """``(name, path)`` of README.md and then every page in nav order, generated ones
    left out: the text the doc tests read and run."""
    found = [("README.md", README)]
    found += [(page, DOCS / page) for page in nav_pages() if page not in GENERATED]
    return tuple(found)


def page_text(name: str) -> str:
    return dict(pages())[name].read_text(encoding="utf-8")


def all_blocks() -> list[Block]:
    """Every fenced block of README.md and the pages, in reading order."""
    return [b for name, path in pages() for b in parse_blocks(path.read_text("utf-8"), name)]


def reval_executable() -> str:
    """The ``reval`` console script installed next to this Python."""
    found = shutil.which("reval", path=str(Path(sys.executable).parent))
    assert found, "the reval console script is not installed next to this Python"
    return found
