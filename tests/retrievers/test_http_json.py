"""``post_json``, the model-server call embedders and rerank scorers share, against real
HTTP servers on 127.0.0.1: its deadline covers the retries, it answers from inside a
running event loop, and it decodes a compressed answer."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest
from support.http_servers import ScriptedServer, json_answer

from retrieval_eval.retrievers.http_json import HttpCallError, RetryPolicy, post_json


def test_the_timeout_covers_the_retries_and_names_the_last_failure() -> None:
    server = ScriptedServer(lambda r: (503, b'{"error": "warming up"}', {"Retry-After": "0.3"}))
    policy = RetryPolicy(timeout_s=1.0, retries=10, backoff_s=0.3)
    with server, pytest.raises(HttpCallError, match=r"^HTTP 503 .*warming up.* after \d attempts"):
        post_json(f"{server.url}/v1/embeddings", {"input": ["a"]}, policy=policy)
    # Waits of 0.3 s (Retry-After) and none that would end past 1 s: at most 4 attempts of
    # the 11 allowed, however slow the machine.
    assert 2 <= len(server.requests) <= 4


async def test_a_call_from_inside_a_running_event_loop_answers() -> None:
    server = ScriptedServer(lambda r: json_answer({"echo": r.json()["input"]}))
    with server:
        answer = post_json(f"{server.url}/v1/embeddings", {"input": ["a", "b"]})
        await asyncio.sleep(0)  # the loop is still usable afterwards
    assert answer == {"echo": ["a", "b"]}
    [request] = server.requests
    assert request.headers["content-type"] == "application/json"


def test_a_compressed_answer_is_decoded_and_a_key_is_sent() -> None:
    body = gzip.compress(json.dumps({"data": [1, 2, 3]}).encode())
    server = ScriptedServer(lambda r: (200, body, {"Content-Encoding": "gzip"}))
    with server:
        assert post_json(server.url, {}, key="k-1") == {"data": [1, 2, 3]}
    assert server.requests[0].headers["authorization"] == "Bearer k-1"


def test_a_client_error_is_not_retried() -> None:
    server = ScriptedServer(lambda r: json_answer({"error": "bad model"}, 400))
    with server, pytest.raises(HttpCallError, match=r"^HTTP 400 \(\{\"error\": \"bad model\"\}\)$"):
        post_json(server.url, {}, policy=RetryPolicy(retries=5))
    assert len(server.requests) == 1
