"""Several real processes open a new store at the same moment (racing the migration) and
save runs concurrently: every run is stored, none is lost or half-written."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from retrieval_eval.store.store import RunStore

WRITERS = 4
RUNS_EACH = 3
QUESTIONS = 150

WRITER = """
import sys, time
from pathlib import Path
from support.factory import make_run
from retrieval_eval.store.store import RunStore

url, go, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
runs, questions = int(sys.argv[4]), int(sys.argv[5])
while not go.exists():
    time.sleep(0.005)
store = RunStore.open(url)
for i in range(runs):
    run = make_run("130" * (questions // 3), started=i, labels={"writer": name, "i": str(i)})
    print(store.save(run), flush=True)
store.close()
"""


def run_writers(url: str, tmp_path: Path) -> list[str]:
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, str(go), f"w{n}", str(RUNS_EACH), str(QUESTIONS)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    time.sleep(0.5)  # let every process start and wait at the barrier
    go.touch()
    ids = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        ids += out.split()
    return ids


def test_concurrent_writers_on_a_new_store_all_get_stored(store_url, tmp_path):
    ids = run_writers(store_url, tmp_path)
    assert len(ids) == len(set(ids)) == WRITERS * RUNS_EACH
    with RunStore.open(store_url) as store:
        summaries = store.list_runs(limit=None)
        assert sorted(s.run_id for s in summaries) == sorted(ids)
        for n in range(WRITERS):
            mine = store.list_runs(labels={"writer": f"w{n}"}, limit=None)
            assert sorted(s.labels["i"] for s in mine) == [str(i) for i in range(RUNS_EACH)]
        for run_id in ids[:: RUNS_EACH + 1]:
            run = store.get(run_id)
            assert len(run.questions) == QUESTIONS and run.error_count == 0
            assert [q.question_id for q in run.questions] == [f"q{i}" for i in range(QUESTIONS)]
