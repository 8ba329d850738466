"""A client of OpenAI-compatible chat-completions servers (OpenAI, vLLM, llama.cpp's
server, Ollama's ``/v1``): the model that drafts questions and grades candidates.

One ``POST {url}/chat/completions`` per call, through reval's HTTP client and retry policy
(``http_client``, ``backoff``): 429 and 5xx answers and dropped connections are tried
again, waiting what ``Retry-After`` asks (capped) or backing off; a deadline covers the
whole call. What the model said is returned as it said it; whether it is the JSON asked
for is the caller's to judge. What no caller can use is a ``ChatFailure`` with a kind:
``refusal`` (the model declined), ``truncated`` (it stopped at the token limit),
``http`` / ``unreachable`` / ``timeout`` / ``malformed`` (the server's answer was no chat
completion).

JSON mode (``response_format: {"type": "json_object"}``) is asked for when the request
wants JSON; a server that refuses the field with a 400 is asked again without it, once
per client, and the prompt alone asks for JSON from then on.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from retrieval_eval.retrievers.backoff import Backoff, GaveUp, Verdict, retrying
from retrieval_eval.retrievers.http_client import (
    open_session,
    read_body,
    retry_after_s,
    transport_problem,
    transport_verdict,
)

#: A chat completion is small; a body past this is no answer to use.
MAX_BODY = 4 << 20
#: Slow servers (a local model on a CPU) ask for long waits; none longer than this.
DEFAULT_BACKOFF = Backoff(attempts=5, initial_s=0.5, max_s=30.0)


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str  # system | user | assistant
    content: str


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str
    messages: tuple[ChatMessage, ...]
    temperature: float = 0.0
    max_tokens: int | None = None
    #: Ask for a JSON object (``response_format``) where the server supports it.
    json_object: bool = True
    seed: int | None = None

    def payload(self, *, json_mode: bool = True) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in self.messages],
            "temperature": self.temperature,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.seed is not None:
            body["seed"] = self.seed
        if self.json_object and json_mode:
            body["response_format"] = {"type": "json_object"}
        return body


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts as the server reported them (None: it did not say)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @classmethod
    def from_json(cls, value: object) -> Usage:
        if not isinstance(value, Mapping):
            return cls()
        return cls(_count(value.get("prompt_tokens")), _count(value.get("completion_tokens")))


@dataclass(frozen=True, slots=True)
class ChatAnswer:
    content: str
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


class ChatFailure(Exception):
    """A call that gave nothing usable; ``kind`` says why (the module docstring's list)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class _Status(Exception):
    def __init__(self, status: int, text: str, retry_after: float | None) -> None:
        super().__init__(f"HTTP {status}: {text}")
        self.status = status
        self.text = text
        self.retry_after = retry_after


class ChatClient:
    """Calls one server; use ``async with``. ``api_key`` goes as a bearer token."""

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        backoff: Backoff = DEFAULT_BACKOFF,
        concurrency: int = 4,
    ) -> None:
        self.endpoint = url.rstrip("/") + "/chat/completions"
        self.timeout_s = timeout_s
        self.backoff = backoff
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._limit = asyncio.Semaphore(concurrency)
        self._concurrency = concurrency
        self._session: aiohttp.ClientSession | None = None
        #: Cleared when the server refused ``response_format``.
        self.json_mode = True

    @property
    def concurrency(self) -> int:
        """Calls in flight at most."""
        return self._concurrency

    async def __aenter__(self) -> ChatClient:
        self._session = open_session(self._headers, max_connections=self._concurrency)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._session is not None:
            await self._session.close()

    async def complete(self, request: ChatRequest) -> ChatAnswer:
        """The model's answer; ``ChatFailure`` when there is none to use. The deadline
        runs from when the call gets its slot: waiting behind other calls is not its time."""
        async with self._limit:
            deadline = time.monotonic() + self.timeout_s
            try:
                body = await retrying(
                    lambda: self._post(request, deadline), self.backoff, _verdict,
                    deadline=deadline,
                )  # fmt: skip
            except GaveUp as e:
                raise _failure(e.error, e.note) from e
            except TimeoutError as e:
                raise ChatFailure(
                    "timeout", f"{self.endpoint}: no answer within {self.timeout_s:g}s"
                ) from e
        return _answer(self.endpoint, body)

    async def _post(self, request: ChatRequest, deadline: float) -> Any:
        assert self._session is not None, "use ChatClient in `async with`"
        remaining = max(0.001, deadline - time.monotonic())
        async with asyncio.timeout(remaining):
            status, text, retry_after = await self._send(request.payload(json_mode=self.json_mode))
            if status == 400 and self.json_mode and request.json_object and _about_format(text):
                self.json_mode = False  # this server has no JSON mode: the prompt asks
                status, text, retry_after = await self._send(request.payload(json_mode=False))
        if status != 200:
            raise _Status(status, text[:300], retry_after)
        try:
            return json.loads(text)
        except ValueError as e:
            raise ChatFailure("malformed", f"{self.endpoint}: the answer is not JSON: {e}") from e

    async def _send(self, payload: Mapping[str, Any]) -> tuple[int, str, float | None]:
        assert self._session is not None
        data = json.dumps(payload).encode("utf-8")
        async with self._session.post(self.endpoint, data=data) as response:
            raw = await read_body(response, MAX_BODY, truncate=response.status != 200)
            wait = retry_after_s(response.headers.get("Retry-After"))
            return response.status, raw.decode("utf-8", "replace"), wait


def _about_format(text: str) -> bool:
    return "response_format" in text or "json_object" in text


def _verdict(error: Exception) -> Verdict | None:
    if isinstance(error, _Status):
        transient = error.status == 429 or error.status >= 500
        return Verdict(transient=transient, retry_after_s=error.retry_after)
    if isinstance(error, ChatFailure):
        return Verdict(transient=False)
    return transport_verdict(error)


def _failure(error: Exception, note: str) -> ChatFailure:
    if isinstance(error, ChatFailure):
        return error
    if isinstance(error, _Status):
        return ChatFailure("http", f"{error}{note}")
    return ChatFailure("unreachable", transport_problem(error) + note)


def _answer(endpoint: str, body: Any) -> ChatAnswer:
    """The first choice of a chat completion, as OpenAI documents it and the compatible
    servers send it (``usage`` may be missing; ``refusal`` is OpenAI's own)."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as e:
        raise ChatFailure("malformed", f"{endpoint}: no choices[0].message in the answer") from e
    finish = choice.get("finish_reason") if isinstance(choice, Mapping) else None
    refusal = message.get("refusal") if isinstance(message, Mapping) else None
    if refusal:
        raise ChatFailure("refusal", f"the model refused: {str(refusal)[:200]}")
    content = message.get("content") if isinstance(message, Mapping) else None
    if finish == "length":
        raise ChatFailure(
            "truncated", "the answer was cut at the token limit (finish_reason length)"
        )
    if finish == "content_filter":
        raise ChatFailure("refusal", "the server's content filter withheld the answer")
    if not isinstance(content, str):
        raise ChatFailure("malformed", f"{endpoint}: the answer has no text content")
    return ChatAnswer(content, Usage.from_json(body.get("usage")), finish)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def messages(system: str, user: str) -> tuple[ChatMessage, ...]:
    return (ChatMessage("system", system), ChatMessage("user", user))
