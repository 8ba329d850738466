"""A loopback stand-in for the comment endpoints of GitHub's and GitLab's REST APIs, as
their documentation describes them: list a pull request's comments (paginated), create
one, edit one. It keeps the comments, records every request, checks the token, and can
be told to refuse writes (403), as GitHub does for a token without the right."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from support.http_servers import LoopbackHttp

TOKEN = "test-token"


@dataclass
class Comment:
    id: int
    body: str


@dataclass
class ReviewApi:
    """``provider`` is ``github`` or ``gitlab``; ``comments`` maps a pull (merge) request
    number to its comments in order."""

    provider: str
    comments: dict[int, list[Comment]] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    refuse_writes: bool = False
    _next_id: int = 1000

    def add(self, number: int, body: str) -> Comment:
        self._next_id += 1
        comment = Comment(self._next_id, body)
        self.comments.setdefault(number, []).append(comment)
        return comment

    def bodies(self, number: int) -> list[str]:
        return [c.body for c in self.comments.get(number, [])]

    # --- routing -------------------------------------------------------------------------

    def answer(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, Any]:
        self.requests.append((method, path))
        split = urlsplit(path)
        query = parse_qs(split.query)
        if not self._authorised(headers):
            return 401, {"message": "Bad credentials"}
        if self.provider == "github":
            listing = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/(\d+)/comments", split.path)
            edit = re.fullmatch(r"/repos/[^/]+/[^/]+/issues/comments/(\d+)", split.path)
            edit_method = "PATCH"
        else:
            listing = re.fullmatch(r"/api/v4/projects/[^/]+/merge_requests/(\d+)/notes", split.path)
            edit = re.fullmatch(
                r"/api/v4/projects/[^/]+/merge_requests/\d+/notes/(\d+)", split.path
            )
            edit_method = "PUT"
        if listing and method == "GET":
            per_page = int(query.get("per_page", ["30"])[0])
            page = int(query.get("page", ["1"])[0])
            every = self.comments.get(int(listing.group(1)), [])
            chunk = every[(page - 1) * per_page : page * per_page]
            return 200, [{"id": c.id, "body": c.body} for c in chunk]
        if self.refuse_writes and method in {"POST", "PATCH", "PUT"}:
            return 403, {"message": "Resource not accessible by integration"}
        if listing and method == "POST":
            comment = self.add(int(listing.group(1)), json.loads(body)["body"])
            return 201, {"id": comment.id, "body": comment.body}
        if edit and method == edit_method:
            wanted = int(edit.group(1))
            for comments in self.comments.values():
                for comment in comments:
                    if comment.id == wanted:
                        comment.body = json.loads(body)["body"]
                        return 200, {"id": comment.id, "body": comment.body}
            return 404, {"message": "Not Found"}
        return 404, {"message": "Not Found"}

    def _authorised(self, headers: dict[str, str]) -> bool:
        if self.provider == "github":
            return headers.get("authorization") == f"Bearer {TOKEN}"
        return headers.get("private-token") == TOKEN


class ReviewServer:
    """``ReviewApi`` served over HTTP/1.1 on 127.0.0.1, from a thread."""

    def __init__(self, api: ReviewApi) -> None:
        self.api = api

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, document = api.answer(self.command, self.path, headers, body)
                data = json.dumps(document).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = _handle

        self._http = LoopbackHttp(Handler)
        self.url = self._http.url

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> ReviewServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
