"""Helpers of the CLI tests: a retriever with fixed answers, two tiny golden sets with
rankings that make every rate checkable by hand, and ``reval`` run as the installed
executable."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem

REVAL = Path(sys.executable).parent / "reval"
FAIL = "FAIL"


@dataclass
class TableRetriever:
    """Answers each question with a fixed ranking (chunk ids ``doc#n``); unknown -> [];
    the answer ``FAIL`` raises, which the server turns into INTERNAL."""

    answers: Mapping[str, list[str]]
    identifier: str = "table"
    version: str = "1"
    delay_s: float = 0.0
    calls: list[str] = field(default_factory=list)

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        self.calls.append(question)
        if self.delay_s:
            time.sleep(self.delay_s)
        answer = self.answers.get(question, [])
        if answer == FAIL:
            raise RuntimeError(f"index shard offline for {question!r}")
        return [RetrievedItem(i) for i in answer[:limit]]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription(self.identifier, self.version, chunk_separator="#")


Questions = list[tuple[str, list[str], str]]  # (id, expected, form)

#: Two tiny sets; the rankings below make every rate checkable by hand.
FAQ: Questions = [
    ("faq-1", ["d1"], "MATCH"),
    ("faq-2", ["d2"], "GAP"),
    ("faq-3", ["d3", "d4"], "GAP"),
    ("faq-4", [], "MATCH"),
]
SUPPORT: Questions = [("sup-1", ["s1"], "MATCH"), ("sup-2", ["s2"], "GAP")]

#: ``good``: faq 1 and 2 hit at top-1 (d1 after its chunk duplicates), faq-3 at top-3,
#: faq-4 correctly empty; support both hit. top-1 3/4, top-3 4/4 on faq.
GOOD = {
    "question faq-1": ["d1#0", "d1#1", "d9#0"],
    "question faq-2": ["d2#0", "d7#0"],
    "question faq-3": ["d8#0", "d8#1", "d9#0", "d4#2"],
    "question faq-4": [],
    "question sup-1": ["s1#0"],
    "question sup-2": ["s2#0", "s1#0"],
}
#: ``bad``: faq-1 and faq-2 drop to rank 2 and 4 (distinct), faq-4 returns something.
BAD = {
    **GOOD,
    "question faq-1": ["d9#0", "d1#0"],
    "question faq-2": ["d7#0", "d7#1", "d6#0", "d5#0", "d2#0"],
    "question faq-4": ["d1#0"],
}


def write_set(directory: Path, name: str, questions: Questions) -> Path:
    path = directory / f"{name}.yaml"
    document = {
        "name": name,
        "description": f"the {name} set",
        "questions": [
            {
                "id": qid,
                "question": f"question {qid}",
                "form": form,
                "expected_document_ids": expected,
                "hard_class": "no-answer" if not expected else "normal",
            }
            for qid, expected, form in questions
        ],
    }
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def run_reval(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The installed ``reval`` executable, as CI runs it (no terminal, CI set)."""
    env = {**os.environ, "CI": "1", "NO_COLOR": "1"}
    return subprocess.run(
        [str(REVAL), *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env
    )
