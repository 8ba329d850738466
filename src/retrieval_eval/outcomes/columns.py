"""The columns a run's outcomes are held in, and the shapes they are read back as."""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import Protocol

from retrieval_eval.records.failures import RetrievalFailure
from retrieval_eval.records.outcome import Form, QuestionOutcome

FORMS = tuple(Form)
FORM_INDEX = {form: i for i, form in enumerate(FORMS)}
#: Bits of ``_flags``.
UNDERFILLED, RANKED_IS_RAW, NO_LATENCY = 1, 2, 4


#: A ``QuestionOutcome``'s field values, in field order (``QuestionOutcome(*values)``).
OutcomeValues = tuple[
    str, Form, str | None, tuple[str, ...], tuple[str, ...], tuple[str, ...],
    Mapping[int, bool], float | None, RetrievalFailure | None, bool,
    tuple[float | None, ...], tuple[str, ...], str | None,
]  # fmt: skip


class Question(Protocol):
    """What an outcome takes from its question (a ``GoldenQuestion``)."""

    @property
    def id(self) -> str: ...

    @property
    def question(self) -> str: ...

    @property
    def form(self) -> Form: ...

    @property
    def hard_class(self) -> str | None: ...

    @property
    def expected_document_ids(self) -> tuple[str, ...]: ...


class Columns:
    """The columns themselves; rows in the order they were added."""

    __slots__ = (
        "class_of",
        "classes",
        "errors",
        "expected",
        "flags",
        "forms",
        "hit_maps",
        "hits",
        "ids",
        "latency",
        "notes",
        "question_ids",
        "question_of",
        "questions",
        "ranked",
        "ranked_end",
        "raw",
        "raw_end",
        "rows",
        "score_none",
        "scores",
        "scores_end",
        "texts",
    )

    def __init__(self, questions: Sequence[Question] | None = None) -> None:
        self.rows = 0
        #: The run's questions, when given: each row's question is then an index into them
        #: (``question_of``) and the five lists below stay empty.
        self.questions = questions
        self.question_of = array("I")
        self.question_ids: list[str] = []
        self.texts: list[str | None] = []
        self.expected: list[tuple[str, ...]] = []
        self.forms = bytearray()
        self.classes: list[str | None] = [None]
        self.class_of = array("I")
        #: Every distinct id of the run; rankings are indices into it.
        self.ids: list[str] = []
        self.raw = array("I")
        #: End of each row's ids in ``raw`` (its start is the previous row's end).
        self.raw_end = array("Q")
        self.ranked = array("I")
        self.ranked_end = array("Q")
        self.latency = array("d")
        self.hit_maps: list[Mapping[int, bool]] = []
        self.hits = array("I")
        self.flags = bytearray()
        #: Scores, flat; rows without scores take none. ``score_none``: flat positions of
        #: results that had no score.
        self.scores = array("d")
        self.scores_end: array[int] | None = None
        self.score_none: set[int] = set()
        self.errors: dict[int, RetrievalFailure] = {}
        self.notes: dict[int, tuple[str, ...]] = {}

    def outcome(self, row: int) -> QuestionOutcome:
        return QuestionOutcome(*self.values(row))

    def question_of_row(self, row: int) -> tuple[str, str | None]:
        """The row's question id and hard class."""
        if self.questions is not None:
            q = self.questions[self.question_of[row]]
            return q.id, q.hard_class
        return self.question_ids[row], self.classes[self.class_of[row]]

    def values(self, row: int) -> OutcomeValues:
        """The row's outcome as its fields' values, in ``QuestionOutcome``'s field order."""
        ids = self.ids
        raw_start = self.raw_end[row - 1] if row else 0
        raw = tuple([ids[i] for i in self.raw[raw_start : self.raw_end[row]]])
        flags = self.flags[row]
        if flags & RANKED_IS_RAW:
            ranked = raw
        else:
            start = self.ranked_end[row - 1] if row else 0
            ranked = tuple([ids[i] for i in self.ranked[start : self.ranked_end[row]]])
        text: str | None
        if self.questions is not None:
            q = self.questions[self.question_of[row]]
            qid, text, form = q.id, q.question, q.form
            hard_class, expected = q.hard_class, q.expected_document_ids
        else:
            qid, text, form = self.question_ids[row], self.texts[row], FORMS[self.forms[row]]
            hard_class, expected = self.classes[self.class_of[row]], self.expected[row]
        return (
            qid,
            form,
            hard_class,
            expected,
            raw,
            ranked,
            self.hit_maps[self.hits[row]],
            None if flags & NO_LATENCY else self.latency[row],
            self.errors.get(row),
            bool(flags & UNDERFILLED),
            self._scores(row) if self.scores_end is not None else (),
            self.notes.get(row, ()),
            text,
        )

    def _scores(self, row: int) -> tuple[float | None, ...]:
        ends = self.scores_end
        assert ends is not None
        start, end = ends[row - 1] if row else 0, ends[row]
        if start == end:
            return ()
        values = self.scores[start:end].tolist()
        if self.score_none:
            none = self.score_none
            return tuple([None if start + i in none else v for i, v in enumerate(values)])
        return tuple(values)
