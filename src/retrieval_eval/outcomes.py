"""A run's question outcomes held by column: what lets a million-question run fit in memory.

``QuestionOutcome`` objects are the API: scoring builds them, reports and the store read
them. Holding a million of them at once is what a big run cannot afford (an object, two
tuples of ids and a float per question: about 400 bytes). ``CompactOutcomes`` keeps the
same values by field instead and is a ``Sequence[QuestionOutcome]`` that builds each
outcome when it is read, equal field by field to the one that was added:

- every result id is stored once per run, and a ranking is an array of 4-byte indices
  into that table (ids recur across questions: a corpus has far fewer documents than a
  big run has results); the distinct documents likewise, or nothing when they are the
  ranking itself (no separator, no duplicate);
- latency and scores are C doubles; form, hard class and the hits mapping are small
  indices into tables of the few values a run holds (hits mappings are shared, read-only);
- the question's id, text, form, hard class and labels are read from the question set
  when the builder was given it (``builder(questions)``, then ``add(outcome, question=i)``):
  a 4-byte index per outcome; otherwise they are kept per outcome, as references to the
  strings the outcome holds; errors and notes, rare, are kept by position.

Built with ``CompactOutcomes.builder()`` in any order (the coordinator records answers as
they arrive), then ``build(order)`` puts them in question order.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Protocol, overload

from retrieval_eval.records import Form, QuestionOutcome, RetrievalFailure

_FORMS = tuple(Form)
_FORM_INDEX = {form: i for i, form in enumerate(_FORMS)}
#: Bits of ``_flags``.
_UNDERFILLED, _RANKED_IS_RAW, _NO_LATENCY = 1, 2, 4


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


class CompactOutcomes(Sequence[QuestionOutcome]):
    """Outcomes by column (see the module docstring); read like a tuple of outcomes."""

    __slots__ = ("_columns", "_count", "_order")

    def __init__(self, columns: _Columns, order: array[int] | None, count: int) -> None:
        self._columns = columns
        #: Question order -> row, or None when the first ``count`` rows are in order.
        self._order = order
        self._count = count if order is None else len(order)

    @staticmethod
    def builder(questions: Sequence[Question] | None = None) -> CompactOutcomeBuilder:
        return CompactOutcomeBuilder(questions)

    @classmethod
    def of(cls, outcomes: Iterable[QuestionOutcome]) -> CompactOutcomes:
        """``outcomes`` (in their order) held by column."""
        if isinstance(outcomes, CompactOutcomes):
            return outcomes
        builder = CompactOutcomeBuilder()
        for outcome in outcomes:
            builder.add(outcome)
        return builder.build()

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> QuestionOutcome: ...

    @overload
    def __getitem__(self, index: slice) -> CompactOutcomes: ...

    def __getitem__(self, index: int | slice) -> QuestionOutcome | CompactOutcomes:
        """An outcome (built now), or a slice: a view over the same columns."""
        order = self._order
        if isinstance(index, slice):
            rows = array("I", range(self._count)) if order is None else order
            return CompactOutcomes(self._columns, rows[index], 0)
        if order is None:
            count = self._count
            if not -count <= index < count:
                raise IndexError("outcome index out of range")
            return self._columns.outcome(index % count if index < 0 else index)
        return self._columns.outcome(order[index])

    def __iter__(self) -> Iterator[QuestionOutcome]:
        outcome = self._columns.outcome
        rows = range(self._count) if self._order is None else self._order
        return map(outcome, rows)

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence (a tuple, a list, another run's) of equal outcomes."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # like a list: compared by value

    def __repr__(self) -> str:
        return f"<CompactOutcomes: {len(self)} questions>"

    # --- what a whole-run figure needs, without building every outcome -------------------

    def values(self) -> Iterator[OutcomeValues]:
        """Each outcome's field values, in ``QuestionOutcome``'s field order (what the
        store encodes, without an object per question)."""
        values = self._columns.values
        return map(values, range(self._count) if self._order is None else self._order)

    def ids_and_classes(self) -> Iterator[tuple[str, str | None]]:
        """Each outcome's question id and hard class, in question order."""
        of = self._columns.question_of_row
        return map(of, range(self._count) if self._order is None else self._order)

    def underfilled_count(self) -> int:
        flags = self._columns.flags
        rows = range(self._count) if self._order is None else self._order
        return sum(1 for row in rows if flags[row] & _UNDERFILLED)

    def latencies(self) -> Iterator[float]:
        """The latency of every answered question that has one, in question order (what
        ``evaluation.latency.run_latency`` summarizes), read from the column as it goes."""
        c = self._columns
        latency, flags, errors = c.latency, c.flags, c.errors
        rows = range(self._count) if self._order is None else self._order
        return (latency[r] for r in rows if not flags[r] & _NO_LATENCY and r not in errors)

    def failures(self) -> Iterator[RetrievalFailure]:
        """The errors of the failed questions, in question order."""
        errors = self._columns.errors
        if self._order is None:
            return iter([errors[row] for row in sorted(errors) if row < self._count])
        return (errors[row] for row in self._order if row in errors)

    def all_notes(self) -> Iterator[tuple[str, ...]]:
        """The notes of the questions that have any, in question order."""
        notes = self._columns.notes
        if self._order is None:
            return iter([notes[row] for row in sorted(notes) if row < self._count])
        return (notes[row] for row in self._order if row in notes)


class _Columns:
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
        if flags & _RANKED_IS_RAW:
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
            qid, text, form = self.question_ids[row], self.texts[row], _FORMS[self.forms[row]]
            hard_class, expected = self.classes[self.class_of[row]], self.expected[row]
        return (
            qid,
            form,
            hard_class,
            expected,
            raw,
            ranked,
            self.hit_maps[self.hits[row]],
            None if flags & _NO_LATENCY else self.latency[row],
            self.errors.get(row),
            bool(flags & _UNDERFILLED),
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


class CompactOutcomeBuilder:
    """Takes outcomes one at a time (each is packed at once, so only the columns stay).

    Given the run's ``questions``, every outcome is added with the index of its question
    among them, whose id, text, form, hard class and labels it must carry (as
    ``score_question`` makes it): they are read from there, not kept twice."""

    __slots__ = ("_class_index", "_columns", "_hit_by_id", "_hit_index", "_id_index")

    def __init__(self, questions: Sequence[Question] | None = None) -> None:
        self._columns = _Columns(questions)
        self._id_index: dict[str, int] = {}
        self._class_index: dict[str | None, int] = {None: 0}
        self._hit_index: dict[tuple[tuple[int, bool], ...], int] = {}
        self._hit_by_id: dict[int, tuple[Mapping[int, bool], int]] = {}

    def __len__(self) -> int:
        return self._columns.rows

    def add(self, outcome: QuestionOutcome, question: int | None = None) -> int:
        """Pack ``outcome``; returns its row (rows count from 0 in the order added).
        ``question``: its question's index in the builder's questions (required when the
        builder has them, ignored otherwise). Whatever can fail (an id that is not a
        string, a missing index) fails before a column changes."""
        c = self._columns
        row = c.rows
        by_index = c.questions is not None
        if by_index and (question is None or not 0 <= question < len(c.questions or ())):
            raise ValueError(f"outcome {outcome.question_id!r}: no question index {question}")
        form = _FORM_INDEX[outcome.form]
        raw = outcome.raw_ids
        raw_indices = self._indices(raw)
        ranked = outcome.ranked_document_ids
        same = ranked is raw or ranked == raw
        ranked_indices = () if same else self._indices(ranked)
        hard_class = self._class(outcome.hard_class)
        hits = self._hits(outcome.hits)
        scores = outcome.raw_scores
        if scores:
            scores = tuple([None if s is None else float(s) for s in scores])
        latency = outcome.latency_ms
        flags = (_UNDERFILLED if outcome.underfilled else 0) | (_RANKED_IS_RAW if same else 0)
        flags |= _NO_LATENCY if latency is None else 0
        c.latency.append(0.0 if latency is None else latency)
        if by_index:
            c.question_of.append(question)  # type: ignore[arg-type]
        else:
            c.question_ids.append(outcome.question_id)
            c.texts.append(outcome.question_text)
            c.expected.append(outcome.expected_document_ids)
            c.forms.append(form)
            c.class_of.append(hard_class)
        c.raw.extend(raw_indices)
        c.raw_end.append(len(c.raw))
        c.ranked.extend(ranked_indices)
        c.ranked_end.append(len(c.ranked))
        c.hits.append(hits)
        c.flags.append(flags)
        self._add_scores(row, scores)
        if outcome.error is not None:
            c.errors[row] = outcome.error
        if outcome.notes:
            c.notes[row] = outcome.notes
        c.rows += 1
        return row

    def add_answer(
        self,
        question: int,
        raw: tuple[str, ...],
        ranked: tuple[str, ...],
        hits: Mapping[int, bool],
        latency_ms: float,
        underfilled: bool,
    ) -> int:
        """``add`` for a scored answer given by its fields (no error, scores or notes),
        without an outcome built only to be packed: the evaluator's hot path. Needs the
        builder's questions; ``question`` is an index into them, ``hits`` a mapping the
        caller keeps for the builder's life (its row is remembered by identity)."""
        c = self._columns
        if c.questions is None or not 0 <= question < len(c.questions):
            raise ValueError(f"no question index {question}")
        row = c.rows
        raw_indices = self._indices(raw)
        same = ranked is raw or ranked == raw
        ranked_indices = () if same else self._indices(ranked)
        known = self._hit_by_id.get(id(hits))
        if known is None:
            known = self._hit_by_id[id(hits)] = (hits, self._hits(hits))
        c.latency.append(latency_ms)
        c.question_of.append(question)
        c.raw.extend(raw_indices)
        c.raw_end.append(len(c.raw))
        c.ranked.extend(ranked_indices)
        c.ranked_end.append(len(c.ranked))
        c.hits.append(known[1])
        c.flags.append((_UNDERFILLED if underfilled else 0) | (_RANKED_IS_RAW if same else 0))
        if c.scores_end is not None:  # earlier rows had scores: this one has none
            c.scores_end.append(len(c.scores))
        c.rows += 1
        return row

    def build(self, order: Iterable[int] | None = None) -> CompactOutcomes:
        """The outcomes added so far; ``order`` lists the rows in question order (default:
        the order they were added). Adding more afterwards leaves the result unchanged."""
        rows = None if order is None else array("I", order)
        return CompactOutcomes(self._columns, rows, self._columns.rows)

    def _indices(self, ids: tuple[str, ...]) -> list[int]:
        index = self._id_index
        table = self._columns.ids
        found = list(map(index.get, ids))  # one call in C per id, no bytecode
        if None not in found:
            return found  # type: ignore[return-value]
        out = []
        for i, at in zip(ids, found, strict=True):
            if at is None:
                at = index.get(i)
                if at is None:
                    at = index[i] = len(table)
                    table.append(i)
            out.append(at)
        return out

    def _class(self, hard_class: str | None) -> int:
        at = self._class_index.get(hard_class)
        if at is None:
            at = self._class_index[hard_class] = len(self._columns.classes)
            self._columns.classes.append(hard_class)
        return at

    def _hits(self, hits: Mapping[int, bool]) -> int:
        key = tuple(hits.items())
        at = self._hit_index.get(key)
        if at is None:
            at = self._hit_index[key] = len(self._columns.hit_maps)
            self._columns.hit_maps.append(MappingProxyType(dict(key)))
        return at

    def _add_scores(self, row: int, scores: tuple[float | None, ...]) -> None:
        c = self._columns
        if c.scores_end is None:
            if not scores:
                return
            c.scores_end = array("Q", bytes(8 * row))  # the rows so far had none
        start = len(c.scores)
        for i, score in enumerate(scores):
            if score is None:
                c.score_none.add(start + i)
        c.scores.extend([0.0 if s is None else s for s in scores])
        c.scores_end.append(len(c.scores))
