"""Retriever replicas as real processes on loopback, and a DNS server that names them.

A replica serves a retriever with a fixed service time (an ``asyncio.sleep``: CPU-light,
like a call waiting on a model server) that answers ``question N`` with ``docN`` first.
Each replica binds its own loopback address (127.0.0.1, 127.0.0.2, ...) on one shared
port, the shape of a Kubernetes headless service: one name, one port, an A record per
pod. Each counts the calls it answered in a small file, updated on every call, so the
count survives the replica being killed.

``LoopbackDns`` answers every A query with the replicas' addresses, so that
``dns://127.0.0.1:DNSPORT/replicas.test:PORT`` is a real ``dns:`` target resolving to
several replicas (gRPC's c-ares resolver asks the DNS server named in the authority).

Run as a script, this module is one replica: ``python tools/replicas.py ADDRESS SERVICE_MS
COUNT_FILE`` prints its bound port and serves until its stdin closes.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import dns.exception
import dns.message
import dns.rdatatype
import dns.rrset

HERE = Path(__file__).resolve()


class SleepingRetriever:
    """Answers after ``service_ms``; counts answered calls in ``count_file``."""

    def __init__(self, service_ms: float, count_file: Path) -> None:
        self.service_s = service_ms / 1000
        self.count = 0
        self._fd = os.open(count_file, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)

    async def retrieve(self, question: str, limit: int) -> list[str]:
        await asyncio.sleep(self.service_s)
        n = int(question.rsplit(" ", 1)[-1])
        self.count += 1
        os.pwrite(self._fd, b"%12d" % self.count, 0)
        return [f"doc{(n + i) % 1000}" for i in range(limit)]

    def describe(self) -> str:
        return "sleeping-replica"


def replica_main(address: str, service_ms: float, count_file: str) -> None:
    from retrieval_eval import serve

    retriever = SleepingRetriever(service_ms, Path(count_file))
    with serve(retriever, address, max_concurrency=1024) as handle:
        print(handle.port, flush=True)
        sys.stdin.read()  # until the parent closes our stdin


class Replica:
    """One replica process; ``answered`` reads its call count (also after a kill)."""

    def __init__(self, host: str, port: int, service_ms: float, workdir: Path) -> None:
        self.host = host
        self.count_file = workdir / f"calls-{host}-{port}"
        self.process = subprocess.Popen(
            [sys.executable, str(HERE), f"{host}:{port}", str(service_ms), str(self.count_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        bound = self.process.stdout.readline().strip()
        if not bound.isdigit():
            self.process.kill()
            raise RuntimeError(f"replica on {host}:{port} did not start")
        self.port = int(bound)

    @property
    def answered(self) -> int:
        text = self.count_file.read_bytes().strip() if self.count_file.exists() else b""
        return int(text or 0)

    def kill(self) -> None:
        """SIGKILL: the process dies with its calls in flight, as a crashed pod does."""
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Replicas:
    """``n`` replicas on 127.0.0.1 .. 127.0.0.n, one shared port; a context manager."""

    def __init__(self, n: int, service_ms: float, workdir: Path) -> None:
        self.replicas: list[Replica] = []
        try:
            first = Replica("127.0.0.1", 0, service_ms, workdir)
            self.replicas.append(first)
            self.port = first.port
            for k in range(2, n + 1):
                self.replicas.append(Replica(f"127.0.0.{k}", self.port, service_ms, workdir))
        except BaseException:
            self.stop()
            raise

    @property
    def hosts(self) -> list[str]:
        return [r.host for r in self.replicas]

    @property
    def ipv4_target(self) -> str:
        return "ipv4:" + ",".join(f"{r.host}:{self.port}" for r in self.replicas)

    def answered(self) -> list[int]:
        return [r.answered for r in self.replicas]

    def stop(self) -> None:
        for replica in self.replicas:
            replica.stop()

    def __enter__(self) -> Replicas:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


class LoopbackDns:
    """A DNS server on 127.0.0.1 (UDP) answering every A query with ``addresses``;
    other query types get an empty answer. A context manager; serves in a thread."""

    def __init__(self, addresses: Sequence[str]) -> None:
        self.addresses = list(addresses)
        self.queries = 0
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.settimeout(0.2)
        self.port: int = self._socket.getsockname()[1]
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def target(self, name: str, port: int) -> str:
        """The gRPC target naming ``name:port`` resolved by this server."""
        return f"dns://127.0.0.1:{self.port}/{name}:{port}"

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                data, peer = self._socket.recvfrom(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                query = dns.message.from_wire(data)
            except dns.exception.DNSException:
                continue
            self.queries += 1
            self._socket.sendto(self._answer(query).to_wire(), peer)

    def _answer(self, query: dns.message.Message) -> dns.message.Message:
        response = dns.message.make_response(query)
        for question in query.question:
            if question.rdtype == dns.rdatatype.A:
                response.answer.append(
                    dns.rrset.from_text_list(question.name, 5, "IN", "A", self.addresses)
                )
        return response

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(2)
        self._socket.close()

    def __enter__(self) -> LoopbackDns:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


if __name__ == "__main__":
    replica_main(sys.argv[1], float(sys.argv[2]), sys.argv[3])
