"""An Elasticsearch-shaped ``_search`` endpoint over a reval BM25 index, for trying (and
testing) reval's ``http`` retriever kind without an Elasticsearch cluster.

    python examples/es-search/server.py INDEX_DIR [--port 9200] [--token-env VAR]

It answers ``POST /<index>/_search`` with a body such as
``{"query": {"match": {"text": "how do I restore"}}, "size": 12}`` the way Elasticsearch
and OpenSearch do (``hits.hits[*]._id`` and ``._score``), requires
``Authorization: Bearer <token>`` when ``--token-env`` names a variable, binds 127.0.0.1
only, and keeps connections alive (HTTP/1.1). Standard library plus the BM25 plugin.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from reval_bm25.retriever import open_index


def make_handler(index, token: str | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def _send(self, status: int, document: object) -> None:
            body = json.dumps(document).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if token is not None and self.headers.get("Authorization") != f"Bearer {token}":
                self._send(401, {"error": {"type": "security_exception"}, "status": 401})
                return
            if not self.path.split("?")[0].endswith("/_search"):
                self._send(404, {"error": {"type": "no_handler"}, "status": 404})
                return
            try:
                request = json.loads(raw)
                (field_query,) = request["query"]["match"].values()
                text = field_query["query"] if isinstance(field_query, dict) else field_query
                size = int(request.get("size", 10))
            except (ValueError, KeyError, TypeError, AttributeError) as e:
                error = {"type": "parsing_exception", "reason": str(e)}
                self._send(400, {"error": error, "status": 400})
                return
            started = time.perf_counter()
            ranking = index.retrieve(text, size) if size > 0 else ()
            hits = [
                {"_index": "docs", "_id": item.document_id, "_score": item.score}
                for item in ranking
            ]
            took = round((time.perf_counter() - started) * 1000)
            top = hits[0]["_score"] if hits else None
            total = {"value": len(hits), "relation": "eq"}
            found = {"total": total, "max_score": top, "hits": hits}
            self._send(200, {"took": took, "hits": found})

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many clients may connect at once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", type=Path, help="a reval BM25 index directory")
    parser.add_argument("--port", type=int, default=9200)
    parser.add_argument("--token-env", help="require the bearer token held in this variable")
    args = parser.parse_args()
    token = os.environ[args.token_env] if args.token_env else None
    handler = make_handler(open_index(args.index), token)
    server = Server(("127.0.0.1", args.port), handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
