"""A retriever started as a real process that prints ``listening on HOST:PORT`` first
(the Node.js and Go examples): started, its port read, its output kept, stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

STARTUP_S = 20.0


@dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    port: int
    lines: list[str]
    reader: threading.Thread

    @property
    def address(self) -> str:
        return f"grpc://127.0.0.1:{self.port}"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            code = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self.reader.join(timeout=5)  # every line the process printed is in self.lines
        return code


def start_server(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> ServerProcess:
    """Start ``argv`` and wait until it reports its port; fail the test if it never does."""
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    bound = threading.Event()

    def read() -> None:  # keeps draining stdout so the process never blocks on it
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("listening on "):
                bound.set()
        bound.set()  # it exited: stop waiting

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    bound.wait(STARTUP_S)
    reported = [x for x in lines if x.startswith("listening on ")]
    if not reported:
        process.kill()
        process.wait()
        pytest.fail(f"{' '.join(argv)} did not report its port: {lines}")
    port = int(reported[0].rsplit(":", 1)[1])
    return ServerProcess(process, port, lines, reader)
