"""A PostgreSQL cluster of a test's own, to stop and restart (the shared test server must
never be): Debian's binaries, initdb in a fresh temporary folder of its own (the
``postgres`` user cannot enter pytest's, which is private to root), a free loopback port,
run as the ``postgres`` user the way ``.ci/run`` starts its server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from support.env import require

BIN = Path("/usr/lib/postgresql/15/bin")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OwnPostgres:
    """``start()``, ``stop()``, ``restart()``, ``remove()``; ``dsn`` reaches its
    ``postgres`` database."""

    def __init__(self) -> None:
        require((BIN / "pg_ctl").is_file(), f"PostgreSQL's binaries are not in {BIN}")
        require(
            os.geteuid() == 0 and shutil.which("runuser") is not None,
            "starting a PostgreSQL cluster needs root (to run it as the postgres user)",
        )
        folder = self.folder = Path(tempfile.mkdtemp(prefix="reval-own-postgres-"))
        self.data = folder / "data"
        self.port = _free_port()
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        shutil.chown(folder, "postgres")
        self._as_postgres(BIN / "initdb", "-D", self.data, "-A", "trust", "-U", "postgres")

    def _as_postgres(self, *command: str | Path) -> None:
        done = subprocess.run(
            ["runuser", "-u", "postgres", "--", *map(str, command)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {done.stdout}{done.stderr}")

    def _pg_ctl(self, action: str, *extra: str) -> None:
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder}"
        self._as_postgres(BIN / "pg_ctl", "-D", self.data, "-l", self.folder / "server.log",
                          "-w", "-o", options, *extra, action)  # fmt: skip

    def start(self) -> None:
        self._pg_ctl("start")

    def stop(self) -> None:
        self._pg_ctl("stop", "-m", "fast")

    def restart(self) -> None:
        """Stop (every connection is closed) and start again; returns once it accepts."""
        self._pg_ctl("restart", "-m", "fast")

    def remove(self) -> None:
        """Stop it if it runs, and delete its folder."""
        if (self.data / "postmaster.pid").exists():
            self._pg_ctl("stop", "-m", "immediate")
        shutil.rmtree(self.folder, ignore_errors=True)
