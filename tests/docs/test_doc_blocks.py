"""The commands of the README and of the documentation pages are run here, so that
documentation cannot rot.

The pages are README.md, then every page of mkdocs.yml's ``nav`` in nav order (a page
generated from the code, ``doc_blocks.GENERATED``, is checked by its own test).
Conventions (an HTML comment on the line before a fenced block):

- ``<!-- doctest: run -->`` before a ``console`` block: its ``$ `` lines run, in that
  order, as one bash script per block (``set -euo pipefail``) in a temporary working
  directory with its own ``REVAL_HOME``. Lines without ``$ `` are output the block must
  print (in any order; ``...`` stands for any text, alone on a line for any lines).
  A page that stands alone (``doc_blocks.STANDALONE``: the how-to pages) has a clean
  directory, run store and database of its own, with only its own files: a block may
  use what an earlier block of the same page made, as a reader would. The other pages
  share one directory, in reading order. Select the module as a whole rather than
  single blocks: the workspaces are module-scoped, and the blocks run in order.
- ``<!-- doctest: skip REASON -->``: not run (the reason is required and shown); its
  ``reval`` commands are still checked against the CLI.
- ``<!-- doctest: file NAME -->`` before any block: its text is written to NAME in the
  page's working directory before its first block runs (NAME is unique across the pages).
- ``<!-- doctest: quickstart-output -->`` before a ``text`` block: lines of the
  quickstart's report, checked by tests/test_quickstart.py (``...`` elides lines).

Every shell block must carry ``run`` or ``skip``: nothing is skipped silently. Ports
50051-50059 in the pages are replaced by free ports, and the example PostgreSQL URL
(``postgresql://reval@db.internal:5432/reval``) by a fresh database on the test server
(``REVAL_TEST_POSTGRES_URL``; .ci/run provides one); a command that names
``127.0.0.1:PORT`` first waits (up to 30 s) until that port accepts connections, as a
person would wait for the server they just started; a backgrounded command (``&``) has
its output sent to a log file and is stopped when the module's tests end.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.env import REPO_ROOT, require

from .doc_blocks import (
    ADDRESS,
    EXAMPLE_DATABASE_URL,
    INSTALL_COMMAND,
    PORT,
    TEST_COMMAND,
    Block,
    all_blocks,
    missing_output,
    page_text,
    workspace_of,
)

BLOCKS = all_blocks()
RUN_BLOCKS = [b for b in BLOCKS if b.kind == "run"]


# --- the pages' shape ----------------------------------------------------------------------


def test_every_shell_block_is_run_or_skipped_with_a_reason() -> None:
    unmarked = [b.where for b in BLOCKS if b.is_shell and b.kind not in ("run", "skip")]
    assert not unmarked, f"shell blocks without a doctest marker: {unmarked}"
    no_reason = [b.where for b in BLOCKS if b.kind == "skip" and not b.argument]
    assert not no_reason, f"'doctest: skip' needs a reason: {no_reason}"
    wrong = [b.where for b in RUN_BLOCKS if b.language != "console"]
    assert not wrong, f"'doctest: run' blocks must be console blocks: {wrong}"
    assert any(b.page == "README.md" for b in RUN_BLOCKS), "README.md has no runnable block"


def test_file_blocks_have_distinct_names() -> None:
    """They share one working directory: a second block of the same name would replace
    the first for every page."""
    names = [b.argument for b in BLOCKS if b.kind == "file"]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@pytest.mark.parametrize("page", ["README.md", "getting-started.md"])
def test_the_front_pages_give_the_two_setup_commands(page: str) -> None:
    commands = [c for b in BLOCKS if b.page == page and b.is_shell for c in b.commands()]
    assert INSTALL_COMMAND in commands
    assert TEST_COMMAND in commands


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci_script = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_lines = [line.strip() for line in ci_script.splitlines()]
    assert TEST_COMMAND in ci_lines, f".ci/run does not run the README's {TEST_COMMAND!r}"


def test_example_data_is_described_as_it_is() -> None:
    import json

    import yaml

    from retrieval_eval.example_data import corpus_path, questions_path

    text = " ".join(page_text("getting-started.md").split())
    pages = sum(1 for line in corpus_path().read_text(encoding="utf-8").splitlines() if line)
    questions = yaml.safe_load(questions_path().read_text(encoding="utf-8"))["questions"]
    assert f"{pages} pages" in text
    assert f"{len(questions)}-question golden set" in text
    assert all(json.loads(line)["_id"] for line in corpus_path().read_text().splitlines())


def test_exit_code_table_matches_the_cli() -> None:
    from retrieval_eval.cli import exit_codes

    text = page_text("reference/exit-codes.md")
    documented = {int(m) for m in re.findall(r"^\| (\d+) \|", text, flags=re.MULTILINE)}
    actual = {
        exit_codes.OK,
        exit_codes.REGRESSION,
        exit_codes.BAD_INPUT,
        exit_codes.FAILURE,
        exit_codes.INTERRUPTED,
        exit_codes.TERMINATED,
    }
    assert documented == actual


# --- running the runnable blocks ----------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Workspace:
    directory: Path
    env: dict[str, str]
    ports: dict[str, str]
    process_groups: list[int]
    database_url: str | None = None

    def localize(self, text: str) -> str:
        text = PORT.sub(lambda m: self.ports.setdefault(m[0], str(_free_port())), text)
        if EXAMPLE_DATABASE_URL in text:
            require(self.database_url is not None, "no PostgreSQL: set REVAL_TEST_POSTGRES_URL")
            text = text.replace(EXAMPLE_DATABASE_URL, str(self.database_url))
        return text


@contextlib.contextmanager
def fresh_database() -> Iterator[str | None]:
    """A new database on the test PostgreSQL server, dropped afterwards (None: no server)."""
    server = os.environ.get("REVAL_TEST_POSTGRES_URL", "")
    if not server:
        yield None
        return
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(server).set(drivername="postgresql")
    name = f"reval_readme_{uuid.uuid4().hex[:12]}"
    admin = url.render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _workspace(directory: Path, database_url: str | None, page_files: list[Block]) -> Workspace:
    """A working directory that looks like a checkout (the package, examples/ and proto/
    linked read-only) plus the given ``doctest: file`` blocks; its own run store."""
    for name in ("src", "examples", "proto"):
        (directory / name).symlink_to(REPO_ROOT / name, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVAL_")}
    env |= {
        "REVAL_HOME": str(directory / ".reval-home"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        "NO_COLOR": "1",
        "COLUMNS": "120",
    }
    space = Workspace(directory, env, {}, [], database_url)
    for block in page_files:
        (directory / block.argument).write_text(space.localize(block.body), encoding="utf-8")
    return space


@pytest.fixture(scope="module")
def workspaces(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[str], Workspace]]:
    """One workspace per page that stands alone, one shared by the others; each made
    (with its own fresh database) when its page's first block runs."""
    made: dict[str, Workspace] = {}
    with contextlib.ExitStack() as stack:

        def get(group: str) -> Workspace:
            if group not in made:
                database_url = stack.enter_context(fresh_database())
                files = [b for b in BLOCKS if b.kind == "file" and workspace_of(b.page) == group]
                directory = tmp_path_factory.mktemp("doc-" + re.sub(r"\W+", "-", group))
                made[group] = _workspace(directory, database_url, files)
            return made[group]

        try:
            yield get
        finally:
            _stop_groups([g for space in made.values() for g in space.process_groups])


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def _stop_groups(groups: list[int], grace_s: float = 5.0) -> None:
    """SIGTERM every process group at once, SIGKILL whatever outlives the grace period."""
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while any(_alive(g) for g in groups) and time.monotonic() < deadline:
        time.sleep(0.05)
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)


def _log_stem(block: Block) -> str:
    """Where a block's background commands log: unique across the pages."""
    return "background-" + re.sub(r"[^A-Za-z0-9]+", "-", block.where)


def script_for(block: Block, space: Workspace) -> str:
    lines = ["set -euo pipefail", WAIT_FOR_PORT]
    for n, command in enumerate(block.commands()):
        command = space.localize(command)
        if command.endswith("&"):
            log = f"{_log_stem(block)}-{n}.log"
            lines.append(f"{command[:-1].rstrip()} >{log} 2>&1 &")
            lines.append("started+=($!)")
            continue
        for port in ADDRESS.findall(command):
            lines.append(f"wait_for_port {port}")
        lines.append(f"echo '$ '{shlex.quote(command)}")
        lines.append(command)
    return "\n".join(lines) + "\n"


WAIT_FOR_PORT = """\
started=()
wait_for_port() {
  for _ in $(seq 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    for pid in "${started[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "a background command exited early" >&2; return 1; }
    done
    sleep 0.1
  done
  echo "nothing listens on 127.0.0.1:$1 after 30 s" >&2; return 1
}"""


def _needs(block: Block) -> None:
    if re.search(r"(^|\s)node\s", block.body):
        require(shutil.which("node") is not None, "Node.js is not installed")
        modules = REPO_ROOT / "examples" / "node-retriever" / "node_modules"
        require(modules.is_dir(), f"{modules} missing: run npm ci (as .ci/run does)")
    if "go-retriever/build.sh" in block.body:
        require(shutil.which("go") is not None, "Go is not installed (.ci/run installs it)")
        grpc_go = Path("/usr/share/gocode/src/google.golang.org/grpc")
        require(grpc_go.is_dir(), f"{grpc_go} missing: Debian's grpc-go (.ci/run installs it)")


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=[b.where for b in RUN_BLOCKS])
def test_runnable_block(block: Block, workspaces: Callable[[str], Workspace]) -> None:
    _needs(block)
    workspace = workspaces(workspace_of(block.page))
    process = subprocess.Popen(
        ["bash", "-c", script_for(block, workspace)],
        cwd=workspace.directory,
        env=workspace.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    workspace.process_groups.append(process.pid)
    try:
        output, _ = process.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        _stop_groups([process.pid])
        output, _ = process.communicate()
        pytest.fail(f"{block.where}: timed out\n{output}")
    logs = "".join(
        f"\n--- {p.name}\n{p.read_text(errors='replace')}"
        for p in sorted(workspace.directory.glob(f"{_log_stem(block)}-*.log"))
    )
    assert process.returncode == 0, (
        f"the block at {block.where} failed (exit {process.returncode}):\n{output}{logs}"
    )
    if any(c.startswith("reval eval ") and "--format" not in c for c in block.commands()):
        assert "top1_hit_rate" in output, f"{block.where}: no report\n{output}"
    missing = missing_output(block.sample_output(), output)
    assert not missing, f"{block.where}: output shown but not printed: {missing}"
