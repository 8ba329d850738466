"""What checking one set collects: its problems, located only when found, and the
set-wide context the per-question checks need (relevance level, corpus)."""

from __future__ import annotations

from collections.abc import Set
from typing import Any

from retrieval_eval.questions.formats import RawSet
from retrieval_eval.questions.judgments import DEFAULT_LEVEL
from retrieval_eval.questions.problems import Problem


def kind(value: object) -> str:
    """A type name people recognise from YAML/JSON, with the value for scalars."""
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"{names.get(type(value), type(value).__name__)} ({value!r})"


def label_of(data: Any) -> str | None:
    """The question's id as messages name it (a number id too, though it is rejected)."""
    qid = data.get("id") if isinstance(data, dict) else None
    if isinstance(qid, int | float) and not isinstance(qid, bool):
        return str(qid)
    return qid if isinstance(qid, str) and qid.strip() else None


class Findings:
    """Collects problems for one raw set; locates lines only for problems found."""

    def __init__(self, raw: RawSet, corpus: Set[str] | None, corpus_name: str) -> None:
        self.raw, self.corpus, self.corpus_name = raw, corpus, corpus_name
        self.problems: list[Problem] = list(raw.problems)
        #: Drafted questions not judged yet, in file order (refused as one problem).
        self.unjudged: list[str] = []
        self.level = DEFAULT_LEVEL
        self.scale: tuple[int, int] | None = None

    def add(
        self, index: int, key: str | None, qid: str | None, message: str, line: int | None = None
    ) -> None:
        loc = self.raw.locator
        if line is None:
            line = loc.key_line(index, key) if key else loc.question_line(index)
        position = None if qid is not None else index + 1
        self.problems.append(Problem(self.raw.source, line, message, qid, position))

    def add_header(self, key: str, message: str) -> None:
        line = self.raw.locator.header_line(key)
        self.problems.append(Problem(self.raw.source, line, message))

    def duplicate_id(self, index: int, label: str | None, first: int) -> None:
        """``label`` at ``index`` was first given by the question at ``first``."""
        line = self.raw.locator.question_line(first)
        where = f"line {line}" if line is not None else f"question #{first + 1}"
        self.add(index, "id", label, f"duplicate question id (first at {where})")
