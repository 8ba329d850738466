"""A real local HTTP model server for the embedding-endpoint and rerank tests.

It serves the offline WordLlama model behind the APIs real servers speak:
``POST /v1/embeddings`` (OpenAI: vLLM, Ollama, TEI, infinity), ``POST /rerank`` (Text
Embeddings Inference: ``query`` + ``texts`` -> ``[{index, score}]``) and ``POST /v1/rerank``
(Cohere: ``query`` + ``documents`` -> ``{results: [{index, relevance_score}]}``). Scores
are real cosine similarities. Its knobs make it misbehave the way servers do: a required
key, a run of error statuses (a 429 storm), the wrong number of dimensions.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ModelServer:
    """Knobs (change them between requests) and what the server saw."""

    dimensions: int = 64
    #: Bearer key the server requires (None: open).
    key: str | None = None
    #: Statuses answered, one per request, before answering properly (e.g. [429] * 3).
    failures: list[int] = field(default_factory=list)
    #: Answer every request with this status (a 429 storm, a dead backend).
    always: int | None = None
    #: Dimensions to answer with instead of ``dimensions`` (a mis-configured model).
    wrong_dimensions: int | None = None
    requests: int = 0
    batch_sizes: list[int] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def embed(self, texts: list[str]) -> Any:
        from reval_dense.embedders.wordllama import WordLlamaEmbedder

        model = _models.get(self.dimensions)
        if model is None:
            model = _models[self.dimensions] = WordLlamaEmbedder(self.dimensions)
        return model.embed(texts)

    def status(self, headers: Any) -> int | None:
        """The error status for this request, if any."""
        with self._lock:
            self.requests += 1
            if self.key is not None and headers.get("Authorization") != f"Bearer {self.key}":
                return 401
            if self.always is not None:
                return self.always
            if self.failures:
                return self.failures.pop(0)
        return None


_models: dict[int, Any] = {}


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            status = server.status(self.headers)
            if status is not None:
                return self._send(status, {"error": {"message": f"status {status} (test)"}})
            if self.path == "/v1/embeddings":
                return self._embeddings(body)
            if self.path in ("/rerank", "/v1/rerank"):
                return self._rerank(body, cohere=self.path == "/v1/rerank")
            return self._send(404, {"error": "not found"})

        def _embeddings(self, body: dict[str, Any]) -> None:
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            server.batch_sizes.append(len(texts))
            vectors = server.embed(texts)
            if server.wrong_dimensions is not None:
                vectors = vectors[:, : server.wrong_dimensions]
            data = [
                {"object": "embedding", "index": i, "embedding": v.tolist()}
                for i, v in enumerate(vectors)
            ]
            self._send(200, {"object": "list", "data": data, "model": body.get("model")})

        def _rerank(self, body: dict[str, Any], *, cohere: bool) -> None:
            texts = body["documents"] if cohere else body["texts"]
            vectors = server.embed([body["query"], *texts])
            scores = (vectors[1:] @ vectors[0]).tolist()
            order = sorted(range(len(texts)), key=lambda i: -scores[i])
            if cohere:
                results = [{"index": i, "relevance_score": scores[i]} for i in order]
                return self._send(200, {"results": results})
            return self._send(200, [{"index": i, "score": scores[i]} for i in order])

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def model_server(**knobs: Any) -> Iterator[ModelServer]:
    """A running server on a free loopback port; ``.url`` is its base (``http://.../``)."""
    state = ModelServer(**knobs)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
