"""Fail fast: a retriever that hangs mid-run (a real server process stopped with SIGSTOP)
makes ``reval eval`` stop asking once the run's errors exceed --max-errors. The questions
never asked are errors of kind ``not_asked`` (never misses), what was measured is saved
and reported, and the exit code is 3; ``--keep-asking`` asks every question."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import REVAL, run_reval, write_set

from retrieval_eval.store.store import RunStore

#: A retriever server that answers ``question q-i`` with ``d{i}`` and stops its own
#: process (SIGSTOP: every thread, as a hung host would) on the HANG_AT-th call. That call
#: and every later one never answer, even in the instant before the stop reaches all
#: threads: on a loaded machine a later call could otherwise slip an answer out.
SERVER = """
import os, signal, sys, threading
from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.server.sdk import serve
from retrieval_eval.retrievers.protocol import RetrievedItem

HANG_AT = int(sys.argv[1])
lock, calls, never = threading.Lock(), [0], threading.Event()


class Hanging:
    def retrieve(self, question, limit):
        with lock:
            calls[0] += 1
            call = calls[0]
        if call >= HANG_AT:
            if call == HANG_AT:
                os.kill(os.getpid(), signal.SIGSTOP)
            never.wait()
        return [RetrievedItem("d" + question.rsplit("-", 1)[1])]

    def describe(self):
        return RetrieverDescription("hanging", "1")


handle = serve(Hanging())
print(handle.address, flush=True)
handle.wait()
"""


@pytest.fixture
def hanging_server(tmp_path: Path) -> Iterator[object]:
    script = tmp_path / "hanging_server.py"
    script.write_text(SERVER)
    processes: list[subprocess.Popen[str]] = []

    def start(hang_at: int) -> str:
        process = subprocess.Popen(
            [sys.executable, str(script), str(hang_at)], stdout=subprocess.PIPE, text=True
        )
        processes.append(process)
        assert process.stdout is not None
        return "grpc://" + process.stdout.readline().strip()

    yield start
    for process in processes:
        process.kill()  # a stopped process dies of SIGKILL too
        process.wait(10)


def _eval(tmp_path: Path, target: str, questions: int, *extra: str) -> tuple[int, str, dict]:
    path = write_set(tmp_path, "many", [(f"q-{i}", [f"d{i}"], "MATCH") for i in range(questions)])
    out = tmp_path / "report.json"
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    done = subprocess.run(
        [
            *(str(REVAL), "eval", "--set", str(path), "--retriever", target, "--db", db),
            *("--timeout", "3", "--concurrency", "4", "--format", "json", "--output", str(out)),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "CI": "1", "NO_COLOR": "1"},
    )
    (run,) = json.loads(out.read_text())["runs"]
    with RunStore.open(db) as store:
        stored = store.get(store.list_runs(limit=1)[0].run_id)
    assert stored.error_count == run["errors"] and len(stored.questions) == questions
    return done.returncode, done.stdout + done.stderr, run


def test_a_hung_retriever_stops_the_run_once_its_errors_exceed_the_budget(hanging_server, tmp_path):
    code, output, run = _eval(tmp_path, hanging_server(20), 200)
    assert code == 3, output
    kinds: dict[str, int] = {}
    for q in run["questions"]:
        if q["error"] is not None:
            kinds[q["error"]["kind"]] = kinds.get(q["error"]["kind"], 0) + 1
            assert q["top1_hit"] is None and q["top3_hit"] is None  # an error, not a miss
        else:
            assert q["top1_hit"] is True
    answered = 200 - run["errors"]
    # Nothing answers from the hang on; what was measured before it is kept (an answer
    # still on its way out when the process stopped, at most 3 with 4 in flight, is lost).
    assert 19 - 3 <= answered <= 19
    assert 1 <= kinds["timeout"] <= 4  # only the calls already in flight waited
    assert kinds["not_asked"] == run["not_asked"] == 200 - answered - kinds["timeout"]
    assert set(kinds) == {"timeout", "not_asked"}
    assert run["state"] == "incomplete" and run["regression"]["verdict"] == "incomplete"
    # the one-line error says so; the report (runs show) says it in full
    assert f"then {kinds['not_asked']} questions not asked; --keep-asking asks them" in output
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    report = run_reval("runs", "show", run["run_id"], "--db", db).stdout
    assert f"stopped asking: {kinds['not_asked']} questions not asked" in report


def test_keep_asking_asks_every_question(hanging_server, tmp_path):
    code, output, run = _eval(tmp_path, hanging_server(5), 12, "--keep-asking")
    assert code == 3, output
    errors = [q["error"]["kind"] for q in run["questions"] if q["error"] is not None]
    assert errors and set(errors) == {"timeout"} and run["not_asked"] == 0
    # nothing answers from the 5th call on; answers before it are kept
    assert 12 - 4 <= len(errors) <= 12 - 1


def test_within_the_budget_every_question_is_asked(hanging_server, tmp_path):
    code, output, run = _eval(tmp_path, hanging_server(5), 8, "--max-errors", "100%")
    assert run["not_asked"] == 0 and 4 <= run["errors"] <= 7 and code == 0, output
