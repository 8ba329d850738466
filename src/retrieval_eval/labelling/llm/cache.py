"""Every model answer kept by the content of its request, so a re-run costs nothing and
a job can be replayed offline.

The key is the digest of the endpoint and the whole request (model, messages, sampling
parameters, JSON mode asked for): the same question to the same model gets the same key,
any change gets another. The API key is never part of a key or of a stored entry. Entries
are small JSON files under ``DIR/ab/abcdef...json``, written atomically; an unreadable
entry counts as missing. Only answers are kept, never failures: a failed call is tried
again next time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from retrieval_eval.atomic import write_atomically
from retrieval_eval.retrievers.chat import ChatAnswer, Usage


def request_key(endpoint: str, payload: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        {"endpoint": endpoint, "request": payload}, sort_keys=True, ensure_ascii=False,
        separators=(",", ":"),
    )  # fmt: skip
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatAnswer | None:
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
            usage = entry.get("usage") or {}
            return ChatAnswer(
                entry["content"],
                Usage(usage.get("prompt_tokens"), usage.get("completion_tokens")),
                entry.get("finish_reason"),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, payload: Mapping[str, Any], answer: ChatAnswer) -> None:
        entry = {
            "request": payload,
            "content": answer.content,
            "finish_reason": answer.finish_reason,
            "usage": {
                "prompt_tokens": answer.usage.prompt_tokens,
                "completion_tokens": answer.usage.completion_tokens,
            },
        }
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(entry, ensure_ascii=False, indent=1).encode("utf-8"))
