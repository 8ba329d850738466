"""``kind = "command"``: a retriever in any language, as a process speaking JSON lines::

    [retrievers.proc]
    kind = "command"
    command = ["python3", "retriever.py"]   # started once, in cwd
    cwd = "."                               # relative to reval.toml's folder (the default)
    env = { MODEL = "small" }               # added to reval's environment

The protocol, one line each way per question, answers in the order of the questions,
each echoing its request's ``id``:

- request: ``{"id": 7, "question": "...", "limit": 12}``
- answer: ``{"id": 7, "results": [{"document_id": "...", "score": 1.0, "chunk_id": "..."}]}``
  (``score`` and ``chunk_id`` optional; the proto's JSON names ``documentId`` and
  ``chunkId`` are accepted too), or ``{"id": 7, "error": "message"}`` for a failed
  question. Answers without ``id`` are taken one question at a time only (see
  ``process``).

The entry's identity is the command line, the folder and environment as written, and the
content of every argument that is a file (a changed ``retriever.py`` is a new variant).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from retrieval_eval.retrievers.kinds.base import Common, KindEntry, TableReader
from retrieval_eval.retrievers.protocol import AsyncRetriever

KEYS = ("command", "cwd", "env")


@dataclass(frozen=True, slots=True)
class CommandConfig(KindEntry):
    common: Common
    command: tuple[str, ...]
    #: The folder the process runs in (absolute).
    cwd: Path
    #: ``cwd`` as written in reval.toml (the identity: the same on every machine).
    cwd_text: str = "."
    env: Mapping[str, str] = field(default_factory=dict)

    def detail(self) -> str:
        return "command " + " ".join(self.command)

    def identity(self) -> Mapping[str, object]:
        return {
            "command": list(self.command),
            "cwd": self.cwd_text,
            "env": dict(self.env),
            "files": {
                arg: _digest(self.cwd / arg) for arg in self.command[1:] if _is_file(self.cwd / arg)
            },
        }

    def open(self, timeout_s: float | None) -> AsyncRetriever:
        # the kind's retriever loads when it is opened, not when reval.toml is read
        from retrieval_eval.retrievers.kinds.command.process import CommandRetriever

        return CommandRetriever(self, timeout_s)


def parse(common: Common, reader: TableReader) -> CommandConfig:
    command = reader.string_list("command", required=True)
    cwd = reader.directory("cwd")
    if not cwd.is_dir():
        raise reader.fail("cwd", f"folder not found: {cwd}")
    return CommandConfig(
        common=common,
        command=command,
        cwd=cwd,
        cwd_text=reader.string("cwd", default="."),
        env=reader.string_table("env"),
    )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _digest(path: Path) -> str:
    try:
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        return f"unreadable: {e.strerror}"
