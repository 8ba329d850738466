"""``CompactOutcomes``, a run's outcomes read back from their columns like a tuple, and
``CompactOutcomeBuilder``, which packs them into those columns as they are added."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import overload

from retrieval_eval.outcomes.columns import (
    FORM_INDEX,
    NO_LATENCY,
    RANKED_IS_RAW,
    UNDERFILLED,
    Columns,
    OutcomeValues,
    Question,
)
from retrieval_eval.records.failures import RetrievalFailure
from retrieval_eval.records.outcome import QuestionOutcome


class CompactOutcomes(Sequence[QuestionOutcome]):
    """Outcomes by column (see the module docstring); read like a tuple of outcomes."""

    __slots__ = ("_columns", "_count", "_order")

    def __init__(self, columns: Columns, order: array[int] | None, count: int) -> None:
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
        return sum(1 for row in rows if flags[row] & UNDERFILLED)

    def latencies(self) -> Iterator[float]:
        """The latency of every answered question that has one, in question order (what
        ``evaluation.latency.run_latency`` summarizes), read from the column as it goes."""
        c = self._columns
        latency, flags, errors = c.latency, c.flags, c.errors
        rows = range(self._count) if self._order is None else self._order
        return (latency[r] for r in rows if not flags[r] & NO_LATENCY and r not in errors)

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


class CompactOutcomeBuilder:
    """Takes outcomes one at a time (each is packed at once, so only the columns stay).

    Given the run's ``questions``, every outcome is added with the index of its question
    among them, whose id, text, form, hard class and labels it must carry (as
    ``score_question`` makes it): they are read from there, not kept twice."""

    __slots__ = ("_class_index", "_columns", "_hit_by_id", "_hit_index", "_id_index")

    def __init__(self, questions: Sequence[Question] | None = None) -> None:
        self._columns = Columns(questions)
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
        form = FORM_INDEX[outcome.form]
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
        flags = (UNDERFILLED if outcome.underfilled else 0) | (RANKED_IS_RAW if same else 0)
        flags |= NO_LATENCY if latency is None else 0
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
        c.flags.append((UNDERFILLED if underfilled else 0) | (RANKED_IS_RAW if same else 0))
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
