"""Real HTTP servers on 127.0.0.1 for the ``http`` retriever kind's tests.

``ScriptedServer(answer)`` serves HTTP/1.1 (keep-alive) from a thread; ``answer(request)``
returns ``(status, body bytes)`` or ``(status, body, headers)`` and may sleep; a body given
as an iterator of pieces is sent chunked (no Content-Length). Every request is recorded
(method, path, headers, body, the client's port: distinct ports are distinct connections).
``EsSearchServer`` starts examples/es-search/server.py as a real process.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from support.env import REPO_ROOT


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    client_port: int

    def json(self) -> Any:
        return json.loads(self.body)


Body = bytes | Iterator[bytes]
Answer = Callable[[Request], tuple[int, Body] | tuple[int, Body, dict[str, str]]]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (a timeout test) is expected, not an error to print


class LoopbackHttp:
    """A ``ThreadingHTTPServer`` for ``handler`` on 127.0.0.1 (a free port), served from a
    daemon thread: the loopback stand-ins of the tests share its start and stop."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], path: str = "") -> None:
        self._server = _Server(("127.0.0.1", 0), handler)
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}{path}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


@dataclass
class ScriptedServer:
    answer: Answer
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = Request(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length),
                    self.client_address[1],
                )
                outer.requests.append(request)
                status, body, *more = outer.answer(request)
                headers = {"Content-Type": "application/json", **(more[0] if more else {})}
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if isinstance(body, bytes):
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for piece in body:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")

            do_GET = do_POST = do_PUT = _handle

        self._http = LoopbackHttp(Handler)
        self.port = self._http.port
        self.url = self._http.url

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def json_answer(document: Any, status: int = 200) -> tuple[int, bytes]:
    return status, json.dumps(document).encode("utf-8")


class EsSearchServer:
    """examples/es-search/server.py over ``index``, as a child process on a free port."""

    SCRIPT = REPO_ROOT / "examples" / "es-search" / "server.py"

    def __init__(self, index: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(self.SCRIPT), str(index), "--port", "0", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "listening on http://127.0.0.1:PORT"
        if not line.startswith("listening on "):
            self.process.kill()
            raise RuntimeError(f"es-search server did not start: {line!r} {self.process.stderr}")
        self.url = line.split()[-1]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> EsSearchServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
