"""The example corpus and questions to draft from, and a scripted retriever."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from retrieval_eval.records.run import RetrieverDescription
from retrieval_eval.retrievers.protocol import RetrievedItem

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "example_data"
CORPUS = EXAMPLE / "corpus.jsonl"
QUESTIONS = [
    "How do I restore a single file?",
    "Which release added support for Backblaze B2?",
    "Can Larkspur back up to a tape drive?",
    "How do I install the agent on Fedora?",
]


@dataclass
class Scripted:
    """Answers each question with a fixed list of chunk ids (``doc#n``)."""

    answers: Mapping[str, list[str]]

    def retrieve(self, question: str, limit: int) -> list[RetrievedItem]:
        return [RetrievedItem(i) for i in self.answers.get(question, [])[:limit]]

    def describe(self) -> RetrieverDescription:
        return RetrieverDescription("scripted", "1", chunk_separator="#")
