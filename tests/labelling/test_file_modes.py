"""Saves keep a shared set file shared: a judging save through ``reval sets judge`` and
``reval sets draft --out`` over an existing file keep its permission bits and group;
a new file follows the umask (not ``mkstemp``'s private 0600)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.labelling import CORPUS

REVAL = Path(sys.executable).parent / "reval"
DRAFT = (
    "questions:\n  - id: q1\n    question: Where?\n    expected_document_ids: []\n"
    "    labelling:\n      state: unjudged\n      candidates: [{document_id: restore-files}]\n"
)


def other_group() -> int | None:
    """A group this process may give a file that is not its own: any, as root."""
    if os.geteuid() == 0:
        return 4242
    return next((g for g in os.getgroups() if g != os.getegid()), None)


def share(path: Path, mode: int) -> int | None:
    """Make ``path`` ``mode`` and, where possible, owned by another group."""
    group = other_group()
    if group is not None:
        os.chown(path, -1, group)
    path.chmod(mode)
    return group


def assert_shared(path: Path, mode: int, group: int | None) -> None:
    info = path.stat()
    assert stat.S_IMODE(info.st_mode) == mode, oct(info.st_mode)
    if group is not None:
        assert info.st_gid == group


@pytest.fixture
def judge_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    draft = tmp_path / "shared" / "draft.yaml"
    draft.parent.mkdir()
    draft.write_text(DRAFT)
    process = subprocess.Popen(
        [
            str(REVAL),
            "sets",
            "judge",
            str(draft),
            "--corpus",
            str(CORPUS),
            "--judge",
            "ben",
            "--db",
            f"sqlite:///{tmp_path / 'runs.sqlite'}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip(), draft
    finally:
        process.terminate()
        process.wait(20)


def test_a_judging_save_keeps_the_files_mode_and_group(judge_server) -> None:
    url, draft = judge_server
    group = share(draft, 0o664)
    body = json.dumps({"judge": "ben", "relevant": ["restore-files"], "complete": True})
    request = urllib.request.Request(
        f"{url}/questions/q1", data=body.encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
    assert "ben" in draft.read_text()  # saved...
    assert_shared(draft, 0o664, group)  # ...and still shared
    left = {p.name for p in draft.parent.iterdir()} - {"draft.yaml", "draft.yaml.lock"}
    assert not left  # no temporary file left behind


def _draft(out: Path, question_file: Path, spec: str) -> None:
    done = subprocess.run(
        [
            str(REVAL),
            "sets",
            "draft",
            str(question_file),
            "--corpus",
            str(CORPUS),
            "--retriever",
            spec,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        umask=0o002,
    )
    assert done.returncode == 0, done.stderr


def test_draft_out_follows_the_umask_and_keeps_an_existing_files_mode_and_group(
    tmp_path: Path, question_file: Path, bm25_specs: tuple[str, str]
) -> None:
    new = tmp_path / "new.yaml"
    _draft(new, question_file, bm25_specs[0])
    assert_shared(new, 0o664, None)  # 0666 & ~0002, not mkstemp's 0600
    group = share(new, 0o640)
    _draft(new, question_file, bm25_specs[0])
    assert_shared(new, 0o640, group)
