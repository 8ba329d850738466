"""A toy OpenAI-compatible chat-completions server, for trying ``reval sets generate``
and ``reval sets judge --llm-url`` without a model (and for testing them).

    python examples/toy-chat-model/server.py [--port 8080]

It answers ``POST /v1/chat/completions`` the way OpenAI, vLLM, llama.cpp's server and
Ollama's ``/v1`` do, with ``usage``, and binds 127.0.0.1 only. It is no model: asked for
questions about a document, its MATCH question repeats the document's title and its GAP
question is a fixed everyday wording; asked to grade, it answers 1 when the question and
the document's title share a word of four letters or more, else 0. That is enough to see
the form check, the cache, the grades and the agreement report at work. Standard library.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def line_after(prompt: str, label: str) -> str:
    found = re.search(rf"^{label}: (.*)$", prompt, re.MULTILINE)
    return found.group(1).strip() if found else ""


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


def answer(prompt: str) -> dict[str, object]:
    if "Question:" in prompt:  # a grading request
        question = line_after(prompt, "Question")
        title = line_after(prompt, "Document title")
        grade = 1 if words(question) & words(title) else 0
        why = "shares words with the title" if grade else "shares no word with the title"
        return {"grade": grade, "reason": f"the question {why}"}
    title = line_after(prompt, "Title")
    return {
        "questions": [
            {"form": "MATCH", "question": f"{title}?"},
            {"form": "GAP", "question": "my stuff is gone, how do I get it back?"},
        ]
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if self.path.rstrip("/") != "/v1/chat/completions":
            status, body = 404, {"error": {"message": f"no route {self.path}"}}
        else:
            prompt = "\n".join(m.get("content", "") for m in request.get("messages", []))
            content = json.dumps(answer(prompt))
            status, body = 200, {
                "object": "chat.completion",
                "model": request.get("model", "toy"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": len(prompt) // 4,
                          "completion_tokens": len(content) // 4},
            }  # fmt: skip
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
