"""One problem found in a question set, located as precisely as the format allows."""

from __future__ import annotations

from dataclasses import dataclass

from retrieval_eval.errors import QuestionSetError


@dataclass(frozen=True, slots=True)
class Problem:
    """``source:line: question 'id': message`` — the shape editors and CI logs understand.

    ``question_id`` names the question; when its id is missing or unusable, ``position``
    (from 1) names it instead as ``question #N``. Both are ``None`` for problems of the set
    as a whole (syntax, header, a file that cannot be read).
    """

    source: str
    line: int | None
    message: str
    question_id: str | None = None
    position: int | None = None

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        if self.question_id is not None:
            return f"{where}: question {self.question_id!r}: {self.message}"
        if self.position is not None:
            return f"{where}: question #{self.position}: {self.message}"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "line": self.line,
            "question_id": self.question_id,
            "position": self.position,
            "message": self.message,
        }


class QuestionSetProblems(QuestionSetError):
    """A ``QuestionSetError`` that keeps the located problems, for reports and ``--format json``."""

    #: How many problems the one-line-per-problem message shows; ``problems`` holds all.
    SHOWN = 50

    def __init__(self, source: str, details: list[Problem]) -> None:
        self.source, self.details = source, details
        lines = [str(p) for p in details]
        if len(lines) == 1:
            message = lines[0]
        else:
            shown = lines[: self.SHOWN]
            if len(lines) > self.SHOWN:
                shown.append(f"... and {len(lines) - self.SHOWN} more")
            message = f"{len(lines)} problems in {source}:\n  " + "\n  ".join(shown)
        super().__init__(message, lines)
