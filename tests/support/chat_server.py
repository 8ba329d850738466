"""A chat-completions server on 127.0.0.1 that answers the way real OpenAI-compatible
servers do (OpenAI, vLLM, llama.cpp's server, Ollama's ``/v1``), from a thread.

``ChatServer(model)``: ``model(request) -> Reply`` sees each request's JSON body and
decides the answer: a completion (``completion(content, ...)``, with or without ``usage``,
a ``finish_reason``, an OpenAI ``refusal``), or an HTTP error with optional
``Retry-After``. Every request is recorded, with its headers.

``writer(...)`` is a model that writes questions about the document in the prompt: its
MATCH question repeats the document's title words, its GAP question is everyday wording
that shares none of them, so the form check has something real to measure.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.http_servers import LoopbackHttp


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()


def completion(
    content: str,
    *,
    usage: bool = True,
    finish_reason: str = "stop",
    refusal: str | None = None,
    model: str = "test-model",
) -> Reply:
    message: dict[str, Any] = {"role": "assistant", "content": None if refusal else content}
    if refusal is not None:
        message["refusal"] = refusal
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    return Reply(200, json.dumps(body).encode("utf-8"))


def error(status: int, message: str = "error", retry_after: str | None = None) -> Reply:
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    body = json.dumps({"error": {"message": message, "type": "server_error"}}).encode("utf-8")
    return Reply(status, body, headers)


Model = Callable[[dict[str, Any]], Reply]


def prompt_of(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"])


def title_of(request: dict[str, Any]) -> str:
    found = re.search(r"^Title: (.*)$", prompt_of(request), re.MULTILINE)
    return found.group(1).strip() if found else ""


def writer(gap: str = "my stuff vanished, what now") -> Model:
    """Questions about the document in the prompt: MATCH from its title, GAP fixed."""

    def answer(request: dict[str, Any]) -> Reply:
        title = title_of(request)
        questions = [
            {"form": "MATCH", "question": f"{title}?"},
            {"form": "GAP", "question": f"{gap} ({title.split()[0].lower()})?"},
        ]
        return completion(json.dumps({"questions": questions}))

    return answer


@dataclass
class ChatServer:
    model: Model
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        outer = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length))
                with lock:
                    outer.requests.append(body)
                    outer.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.rstrip("/") != "/v1/chat/completions":
                    reply = error(404, f"no route {self.path}")
                else:
                    reply = outer.model(body)
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                for name, value in reply.headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

        self._http = LoopbackHttp(Handler, "/v1")
        self.url = self._http.url

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> ChatServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
