"""Every distribution the repository tells someone to install is one that exists and is
meant: ours (``reval-ir`` and its plugins) or a dependency a pyproject here declares.

``retrieval-eval`` on PyPI is another project that ships its own ``retrieval_eval``
package, so a hint naming it installs someone else's code. The checks read the text of
every file in the repository (docs, README, recipes, source with its error messages and
hints, CI scripts), so a message or page added later is checked too:

- every ``pip install`` command: each requirement is ours, with extras our pyproject
  defines, or a declared dependency; a path with extras names extras that path defines;
- every "the ``NAME`` extra" names an extra of the core; every ``install_extra("NAME")``
  in the source too;
- every requirement in the pyprojects that looks like ours is ours;
- the other project's name appears only where it is named as the other project.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from support.env import REPO_ROOT

from retrieval_eval.version import (
    DISTRIBUTION,
    PLUGIN_DISTRIBUTIONS,
    install_extra,
    install_plugin,
)

#: Our distributions -> the directory of their pyproject.toml.
OURS = {
    DISTRIBUTION: REPO_ROOT,
    **{dist: REPO_ROOT / "plugins" / name for name, dist in PLUGIN_DISTRIBUTIONS.items()},
    "reval-ir-example-provider": REPO_ROOT / "examples" / "question-set-provider",
}
#: The other project's name, and our plugins' old names in any spelling (the import
#: package ``retrieval_eval`` itself is ours).
OTHER_PROJECT = re.compile(
    r"retrieval[-.]eval\b|\bretrieval_eval\[|retrieval[-_.]eval[-_.](?:bm25|dense)"
)
#: Where the other project is named on purpose, and the words that must come with it.
WARNINGS = {
    "README.md": "must not share an environment",
    "docs/getting-started.md": "must not share an environment",
    "docs/contributing.md": "another project",
    "src/retrieval_eval/version.py": "another project",
    "tests/api/test_version.py": "another project",
}
TEXT_SUFFIXES = {".md", ".py", ".toml", ".yaml", ".yml", ".txt", ".cfg", ".ini", ".sh",
                 ".j2", ".html", ".js", ".ts", ".go", ".json", ".proto", ""}  # fmt: skip
SKIPPED_DIRS = {"node_modules", "__pycache__", "build", "dist", "site", "v1", "gen"}
PIP_INSTALL = re.compile(r"pip install\s+(?P<rest>(?:(?!pip install)[^\n])*)")
#: Where a command written in prose or code ends: a quote closing a string of the code, a
#: code span, a parenthesis, a comment, another command, a comma ending the clause.
COMMAND_END = re.compile(r"[\"`()#;|]|&&|, ")
#: What installs the installer (``pip install --upgrade pip``).
INSTALLER = {"pip", "setuptools", "wheel"}
NAMED_EXTRA = re.compile(r"\bthe `?(?P<name>[a-z][a-z0-9-]*)`? extra\b")
EXTRA_CALL = re.compile(r"install_extra\(\s*[\"'](?P<name>[^\"']+)[\"']\s*\)")
REQUIREMENT = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[(?P<extras>[^\]]*)\])?")


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def pyproject(directory: Path) -> dict[str, object]:
    return tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))


def extras_of(directory: Path) -> set[str]:
    project = pyproject(directory)["project"]
    assert isinstance(project, dict)
    return set(project.get("optional-dependencies", {}))


def declared_requirements() -> Iterator[tuple[Path, str]]:
    """``(pyproject, requirement)`` for every dependency and extra's requirement."""
    for path in sorted(REPO_ROOT.rglob("pyproject.toml")):
        if not _scanned(path.relative_to(REPO_ROOT)):
            continue
        project = pyproject(path.parent)["project"]
        assert isinstance(project, dict)
        yield from ((path, r) for r in project.get("dependencies", []))
        for requirements in project.get("optional-dependencies", {}).values():
            yield from ((path, r) for r in requirements)


@cache
def third_party() -> frozenset[str]:
    names = set()
    for _, requirement in declared_requirements():
        match = REQUIREMENT.match(requirement)
        assert match, requirement
        names.add(normalised(match["name"]))
    return frozenset(names - set(OURS))


def _scanned(relative: Path) -> bool:
    parts = relative.parts
    return not any(
        p in SKIPPED_DIRS or p.endswith(".egg-info") or (p.startswith(".") and p != ".ci")
        for p in parts[:-1]
    )


@cache
def text_files() -> tuple[tuple[str, str], ...]:
    """``(path relative to the root, text)`` of every text file of the repository."""
    found = []
    this = Path(__file__).resolve()
    for path in sorted(REPO_ROOT.rglob("*")):
        relative = path.relative_to(REPO_ROOT)
        if (
            path == this
            or not path.is_file()
            or not _scanned(relative)
            or path.suffix not in TEXT_SUFFIXES
        ):
            continue
        if path.name.endswith(".min.js") or path.name == "package-lock.json":
            continue
        try:
            found.append((relative.as_posix(), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(found)


def pip_commands(text: str) -> Iterator[str]:
    """What follows each ``pip install`` in ``text``, up to where the command ends."""
    for match in PIP_INSTALL.finditer(text):
        rest = match["rest"]
        end = COMMAND_END.search(rest)
        yield (rest[: end.start()] if end else rest).strip()


def problems_of_command(command: str) -> list[str]:
    """What is wrong with the requirements of one ``pip install`` command."""
    try:
        tokens = shlex.split(command)
    except ValueError:  # an unbalanced quote in prose: read it by whitespace
        tokens = command.replace("'", " ").replace('"', " ").split()
    problems = []
    for token in tokens:
        token = token.rstrip(",.")
        if not token or token.startswith("-") or "{" in token or token in ("NAME", "PACKAGE"):
            continue  # an option, or a name filled in by code
        if token.startswith((".", "/", "~")) or ("/" in token and "@" not in token):
            problems += _path_problems(token)
            continue
        match = REQUIREMENT.match(token)
        if match is None:
            continue
        name = normalised(match["name"])
        if name in OURS:
            wanted = {e.strip() for e in (match["extras"] or "").split(",") if e.strip()}
            unknown = wanted - extras_of(OURS[name])
            if unknown:
                problems.append(f"{token}: {name} has no extra {', '.join(sorted(unknown))}")
        elif name not in third_party() and name not in INSTALLER:
            problems.append(f"{token}: not our distribution nor a declared dependency")
    return problems


def _path_problems(token: str) -> list[str]:
    path, _, extras = token.partition("[")
    if not extras:
        return []
    directory = (REPO_ROOT / path).resolve()
    if not (directory / "pyproject.toml").is_file():
        directory = REPO_ROOT  # a checkout of reval elsewhere (a submodule, a clone)
    wanted = {e.strip() for e in extras.rstrip("]").split(",") if e.strip()}
    unknown = wanted - extras_of(directory)
    return [f"{token}: no extra {', '.join(sorted(unknown))} there"] if unknown else []


def test_the_checks_see_the_files_and_commands_they_are_for():
    """The scan reads what it must (a broken file walk would pass everything)."""
    paths = {path for path, _ in text_files()}
    assert {"README.md", ".ci/run", "docs/how-to/gate-ci.md", "pyproject.toml",
            "src/retrieval_eval/cli/ui.py", "plugins/bm25/README.md"} <= paths  # fmt: skip
    commands = [c for _, text in text_files() for c in pip_commands(text)]
    assert (
        "-e '.[test]' -e ./plugins/bm25 -e ./plugins/dense -e ./examples/question-set-provider"
        in commands
    )
    assert len(commands) > 20


@pytest.mark.parametrize(
    ("command", "wrong"),
    [
        ("retrieval-eval -e .", True),
        ("'retrieval-eval[ui]'", True),
        ("'reval-ir[nonesuch]'", True),
        ("reval", True),
        ("'./reval[postgres,nonesuch]'", True),
        ("'reval-ir[ui,lint]'", False),
        ("-e './plugins/bm25' mypy-protobuf", False),
        ("'./reval[postgres]' -e .", False),
    ],
)
def test_the_command_check_tells_ours_from_others(command, wrong):
    assert bool(problems_of_command(command)) is wrong


def test_every_pip_install_names_our_distributions_or_declared_dependencies():
    problems = [
        f"{path}: pip install {command}: {problem}"
        for path, text in text_files()
        for command in pip_commands(text)
        for problem in problems_of_command(command)
    ]
    assert not problems, "\n".join(problems)


def test_the_hints_written_by_code_name_ours():
    for extra in sorted(extras_of(REPO_ROOT)):
        command = install_extra(extra).removeprefix("pip install ")
        assert problems_of_command(command) == [], command
    for name in PLUGIN_DISTRIBUTIONS:
        commands = list(pip_commands(install_plugin(name)))
        assert len(commands) == 2
        assert [problems_of_command(c) for c in commands] == [[], []]


def test_every_extra_named_exists():
    extras = extras_of(REPO_ROOT)
    missing = [
        f"{path}: {match[0]!r}"
        for path, text in text_files()
        for pattern in (NAMED_EXTRA, EXTRA_CALL)
        for match in pattern.finditer(text)
        if match["name"] not in extras
    ]
    assert not missing, "\n".join(missing)


def test_requirements_that_look_like_ours_are_ours():
    wrong = []
    for path, requirement in declared_requirements():
        match = REQUIREMENT.match(requirement)
        assert match, requirement
        name = normalised(match["name"])
        if name.startswith(("reval", "retrieval")) and name not in OURS:
            wrong.append(f"{path.relative_to(REPO_ROOT)}: {requirement}")
        elif name in OURS and match["extras"]:
            unknown = set(match["extras"].split(",")) - extras_of(OURS[name])
            if unknown:
                wrong.append(f"{path.relative_to(REPO_ROOT)}: {requirement}: no such extra")
    assert not wrong, "\n".join(wrong)
    for name, directory in OURS.items():
        assert normalised(str(pyproject(directory)["project"]["name"])) == name  # type: ignore[index]


def test_the_other_project_is_named_only_as_the_other_project():
    misnamed = []
    for path, text in text_files():
        for paragraph in re.split(r"\n\s*\n", text):
            if not OTHER_PROJECT.search(paragraph):
                continue
            if path not in WARNINGS or WARNINGS[path] not in " ".join(paragraph.split()):
                line = next(x for x in paragraph.splitlines() if OTHER_PROJECT.search(x))
                misnamed.append(f"{path}: {line.strip()}")
    assert not misnamed, "\n".join(misnamed)
