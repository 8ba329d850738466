"""SQLite files that must not be written: a corrupted store (its pages fail SQLite's
``quick_check``, though every query reval makes to list its runs still works) is refused
with one line before anything is written to it; a store on a read-only file system
(a real read-only bind mount, in a mount namespace of the test's own) lists and shows
its runs and refuses a write with one line, creating no journal."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.env import require
from support.factory import make_run

from retrieval_eval.errors import StoreError
from retrieval_eval.example_data import corpus_path, questions_path
from retrieval_eval.store.store import RunStore

REVAL = Path(sys.executable).parent / "reval"


def filled_store(path: Path, runs: int = 8) -> list[str]:
    with RunStore.open(f"sqlite:///{path}") as store:
        return [store.save(make_run("HM" * 30, started=n)) for n in range(runs)]


def corrupt_an_old_outcomes_page(path: Path) -> int:
    """Scribble over the cell pointers of a leaf page of the first runs' outcomes (one a
    new run's rows never touch); returns its page number."""
    db = sqlite3.connect(path)
    try:
        leaves = db.execute(
            "SELECT pageno FROM dbstat WHERE name = 'reval_outcomes' AND pagetype = 'leaf' "
            "ORDER BY pageno"
        ).fetchall()
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
    except sqlite3.OperationalError as e:  # SQLite built without the dbstat table
        require(False, f"SQLite's dbstat table is missing: {e}")
        raise
    finally:
        db.close()
    assert len(leaves) > 3
    page = leaves[1][0]
    with path.open("r+b") as f:
        f.seek((page - 1) * page_size + 8)  # a leaf's header is 8 bytes: its cell pointers
        f.write(b"\xff\xf0" * 4)
    return int(page)


def runs_in(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM reval_runs").fetchone()[0])


def reval(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(REVAL), *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1"})  # fmt: skip


def test_a_corrupted_store_is_read_but_never_written(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    ids = filled_store(path)
    page = corrupt_an_old_outcomes_page(path)
    with RunStore.open(f"sqlite:///{path}") as store:
        assert [r.run_id for r in store.list_runs(limit=None)] == ids[::-1]  # reads work
        with pytest.raises(StoreError, match=f"is corrupted .*quick_check: .*page {page}"):
            store.save(make_run("HM" * 30, started=100))
        with pytest.raises(StoreError, match="is corrupted"):
            store.pin(ids[-1])
    assert runs_in(path) == len(ids)
    done = reval("runs", "pin", ids[-1], "--db", f"sqlite:///{path}")
    assert done.returncode == 3 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("reval: error: run store ") and "is corrupted" in line


def test_reval_eval_on_a_corrupted_store_saves_and_judges_nothing(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    ids = filled_store(path)
    corrupt_an_old_outcomes_page(path)
    index = tmp_path / "index"
    assert reval("bm25", "index", corpus_path(), "--out", index).returncode == 0
    done = reval("eval", "--set", questions_path(), "--retriever", f"bm25:{index}",
                 "--db", f"sqlite:///{path}")  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "not saved and not judged" in done.stdout and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("reval: error: run store ") and "is corrupted" in line
    assert runs_in(path) == len(ids)


def test_a_sound_store_passes_its_check_and_is_written(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    ids = filled_store(path, runs=3)
    with RunStore.open(f"sqlite:///{path}") as store:
        store.save(make_run("HM" * 30, started=100))
        store.pin(ids[0])
    assert runs_in(path) == 4


def test_a_store_on_read_only_media_is_listed_and_shown(tmp_path: Path) -> None:
    require(os.geteuid() == 0 and shutil.which("unshare") is not None,
            "a read-only bind mount needs root and unshare")  # fmt: skip
    media = tmp_path / "media"
    media.mkdir()
    path = media / "runs.sqlite"
    ids = filled_store(path, runs=3)
    before = sorted(p.name for p in media.iterdir())
    assert before == ["runs.sqlite"]  # no journal left behind by the writer
    url = f"sqlite:///{path}"
    script = (
        f'mount --bind -o ro "{media}" "{media}" || exit 90\n'
        f'"{REVAL}" runs list --db "{url}" --format json > "{tmp_path}/list.json" || exit 91\n'
        f'"{REVAL}" runs show {ids[0]} --db "{url}" > "{tmp_path}/show.txt" || exit 92\n'
        f'"{REVAL}" runs pin {ids[0]} --db "{url}" 2> "{tmp_path}/pin.txt"\n'
        f'echo $? > "{tmp_path}/pin.code"\n'
        f'ls -A "{media}" > "{tmp_path}/files.txt"\n'
    )
    done = subprocess.run(["unshare", "--mount", "sh", "-c", script], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    if done.returncode == 90:
        require(False, f"cannot bind-mount read-only here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    listed = json.loads((tmp_path / "list.json").read_text())["runs"]
    assert [r["run_id"] for r in listed] == ids[::-1]
    assert ids[0] in (tmp_path / "show.txt").read_text()
    assert (tmp_path / "pin.code").read_text().strip() == "3"
    [line] = (tmp_path / "pin.txt").read_text().strip().splitlines()
    assert "is read-only" in line and "Traceback" not in line
    assert (tmp_path / "files.txt").read_text().split() == ["runs.sqlite"]
