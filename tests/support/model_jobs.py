"""What the model-labelling tests share: the installed ``reval`` with a home of the test's
own, a judge model for the loopback chat server, and a set file's questions."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import yaml

from support.chat_server import Reply, completion, prompt_of
from support.cli import REVAL


def reval(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REVAL_HOME": str(tmp_path / "home"), "NO_COLOR": "1"}
    return subprocess.run([str(REVAL), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=120, cwd=tmp_path)  # fmt: skip


def grader(wrong: set[str]) -> Any:
    """A judge model: grade 1, except 0 for questions whose text contains a word of ``wrong``."""

    def answer(request: dict[str, Any]) -> Reply:
        question = prompt_of(request).split("Question: ", 1)[1].split("\n", 1)[0]
        grade = 0 if any(w in question.lower() for w in wrong) else 1
        return completion(json.dumps({"grade": grade, "reason": f"grade {grade} for {question}"}))

    return answer


def questions(path: Path) -> list[dict[str, Any]]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]


def generated(tmp_path: Path, draft: Path, sample: int) -> list[dict[str, Any]]:
    """``sets generate`` of the example corpus by the ``writer`` model into ``draft``:
    its questions."""
    from retrieval_eval.example_data import corpus_path
    from support.chat_server import ChatServer, writer

    with ChatServer(writer()) as server:
        made = reval(tmp_path, "sets", "generate", "--corpus", corpus_path(), "--llm-url",
                     server.url, "--model", "writer", "--sample", str(sample),
                     "--out", draft)  # fmt: skip
    assert made.returncode == 0, made.stderr
    return questions(draft)
