"""Signals during ``reval eval``: what was measured is saved and reported, exit 130/143."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import threading
import time

import pytest
from support.cli import REVAL, run_reval, write_set

#: What ``reval eval`` prints once a signal has stopped measuring and the save begins.
STOPPED = "reval: stopped; saving and reporting what was measured"


class Output:
    """A process's standard output and error, read as they come (in threads, so that
    neither pipe fills), with a wait for a line on standard error."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._changed = threading.Condition()
        self._threads = [
            threading.Thread(target=self._read, args=(pipe, lines), daemon=True)
            for pipe, lines in ((process.stdout, self.stdout), (process.stderr, self.stderr))
        ]
        for thread in self._threads:
            thread.start()

    def _read(self, pipe, lines: list[str]) -> None:
        for line in pipe:
            with self._changed:
                lines.append(line)
                self._changed.notify_all()
        with self._changed:
            lines.append("")  # end of output
            self._changed.notify_all()

    def wait_for_stderr(self, text: str, timeout: float = 30) -> bool:
        """True once a line holding ``text`` was written; False at the end of the output
        (or after ``timeout`` seconds)."""
        with self._changed:
            return self._changed.wait_for(
                lambda: any(text in line for line in self.stderr) or self.stderr[-1:] == [""],
                timeout,
            ) and any(text in line for line in self.stderr)

    def join(self) -> tuple[str, str]:
        for thread in self._threads:
            thread.join(timeout=30)
        return "".join(self.stdout), "".join(self.stderr)


@pytest.mark.parametrize(
    ("signals", "code"),
    [
        ((signal.SIGINT,), 130),
        ((signal.SIGTERM,), 143),  # docker stop, CI cancellation: like Ctrl-C
        ((signal.SIGTERM, signal.SIGTERM), 143),  # the second once saving has begun
    ],
    ids=["sigint", "sigterm", "sigterm-twice"],
)
def test_a_signal_keeps_the_measured_part_as_an_interrupted_run(
    serve_table, db, tmp_path, signals, code
):
    questions = [(f"slow-{i}", [f"d{i}"], "MATCH") for i in range(40)]
    path = write_set(tmp_path, "slow", questions)
    answers = {f"question slow-{i}": [f"d{i}#0"] for i in range(40)}
    calls: list[str] = []
    target = serve_table(answers, identifier="slow", delay_s=0.1, calls=calls)
    out = tmp_path / "partial.json"
    env = {**os.environ, "CI": "1"}
    process = subprocess.Popen(
        [
            str(REVAL),
            "eval",
            "--set",
            str(path),
            "--retriever",
            target,
            "--concurrency",
            "1",
            "--db",
            db,
            "--format",
            "json",
            "--output",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    output = Output(process)
    deadline = time.monotonic() + 30
    while len(calls) < 4 and time.monotonic() < deadline:  # 3 answered, 1 in flight
        time.sleep(0.05)
    try:
        process.send_signal(signals[0])
        for signum in signals[1:]:
            # Only once the first signal has stopped measuring and the save has begun.
            assert output.wait_for_stderr(STOPPED), "".join(output.stderr)
            process.send_signal(signum)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:  # a failed wait: leave nothing running
            process.kill()
    stdout, stderr = output.join()
    assert process.returncode == code, stderr
    assert STOPPED in stderr and "interrupted" in stderr
    (run,) = json.loads(out.read_text())["runs"]
    assert run["state"] == "interrupted" and run["complete"] is False
    measured = len(run["questions"])
    assert 3 <= measured < 40
    assert run["metrics"]["top1_hit_rate"] == 1.0  # every measured question hit
    stored = run_reval("runs", "list", "--db", db, "--format", "json")
    (summary,) = json.loads(stored.stdout)["runs"]
    assert summary["state"] == "interrupted" and summary["run_id"] == run["run_id"]
    # the terminal gets the run's verdict line, the file the report
    assert stdout.startswith("slow × slow 1: not checked · top-1 1.000 ")
    assert f" · interrupted · run {run['run_id']}\n" in stdout
    database = sqlite3.connect(db.removeprefix("sqlite:///"))
    assert database.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    database.close()


def test_sigterm_to_a_background_job_of_a_shell_keeps_the_run(serve_table, db, tmp_path):
    """POSIX shells start background jobs with SIGINT ignored (so asyncio installs no
    Ctrl-C handler); SIGTERM must still keep and report what was measured, exit 143."""
    questions = [(f"slow-{i}", [f"d{i}"], "MATCH") for i in range(40)]
    path = write_set(tmp_path, "slow", questions)
    answers = {f"question slow-{i}": [f"d{i}#0"] for i in range(40)}
    calls: list[str] = []
    target = serve_table(answers, identifier="slow", delay_s=0.1, calls=calls)
    out, go = tmp_path / "r.json", tmp_path / "go"
    script = (
        f'"{REVAL}" eval --set "{path}" --retriever {target} --concurrency 1 --db "{db}" '
        f'--format json --output "{out}" & pid=$!; '
        f'while [ ! -e "{go}" ]; do sleep 0.05; done; '
        'kill -TERM $pid; wait $pid; echo "exit $?"'
    )
    env = {**os.environ, "CI": "1"}
    shell = subprocess.Popen(
        ["sh", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    deadline = time.monotonic() + 30
    while len(calls) < 4 and time.monotonic() < deadline:  # measuring has begun
        time.sleep(0.05)
    go.touch()
    stdout, stderr = shell.communicate(timeout=60)
    assert "exit 143" in stdout, stderr
    assert "unhandled exception" not in stderr and "Traceback" not in stderr
    (run,) = json.loads(out.read_text())["runs"]
    assert run["state"] == "interrupted" and 3 <= len(run["questions"]) < 40
    stored = run_reval("runs", "list", "--db", db, "--format", "json")
    (summary,) = json.loads(stored.stdout)["runs"]
    assert summary["state"] == "interrupted" and summary["run_id"] == run["run_id"]
