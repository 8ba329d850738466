"""A question set held by column: what lets a million-question set fit beside its run.

``GoldenQuestion`` objects are the API; holding a million of them (an object, an id and a
text string each: about 250 bytes) is most of what a big ``reval eval`` keeps.
``CompactQuestions`` keeps the same values by field and is a ``Sequence[GoldenQuestion]``
that builds each question when it is read, equal field by field to the one added:

- ids and texts are UTF-8 bytes in one buffer each, with an end offset per question
  (``surrogatepass``: any ``str`` comes back exactly);
- labels are 4-byte indices into the set's table of distinct document ids, with an end
  offset per question;
- judgments (grades) exist only from the first question that has them: a document index
  and a 4-byte grade per judged document, with an end offset per question from there on,
  so a set of plain lists carries nothing more than it always did;
- form and hard class are small indices into the few values a set holds; answer gists,
  documentation only, are kept by position.

Built with ``CompactQuestions.builder()`` (the JSONL reader adds each line as it reads it)
or ``CompactQuestions.of(questions)``.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from sys import intern
from typing import overload

from retrieval_eval.questions.model import GoldenQuestion
from retrieval_eval.records.outcome import Form

_FORMS = tuple(Form)
_FORM_INDEX = {form: i for i, form in enumerate(_FORMS)}


class CompactQuestions(Sequence[GoldenQuestion]):
    """Questions by column (see the module docstring); read like a tuple of questions."""

    __slots__ = ("_by_id", "_c")

    def __init__(self, columns: _Columns) -> None:
        self._c = columns
        #: Rows in id order (stable), once computed: duplicates and the fingerprint use it.
        self._by_id: array[int] | None = None

    @staticmethod
    def builder() -> CompactQuestionBuilder:
        return CompactQuestionBuilder()

    @classmethod
    def of(cls, questions: Iterable[GoldenQuestion]) -> CompactQuestions:
        if isinstance(questions, CompactQuestions):
            return questions
        builder = CompactQuestionBuilder()
        for q in questions:
            builder.add(q)
        return builder.build()

    def __len__(self) -> int:
        return len(self._c.forms)

    @overload
    def __getitem__(self, index: int) -> GoldenQuestion: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[GoldenQuestion, ...]: ...

    def __getitem__(self, index: int | slice) -> GoldenQuestion | tuple[GoldenQuestion, ...]:
        """A question (built now), or a slice: a tuple of questions, like a tuple's slice."""
        if isinstance(index, slice):
            return tuple(map(self._c.question, range(len(self))[index]))
        count = len(self)
        if not -count <= index < count:
            raise IndexError("question index out of range")
        return self._c.question(index + count if index < 0 else index)

    def __iter__(self) -> Iterator[GoldenQuestion]:
        return map(self._c.question, range(len(self)))

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence (a tuple, a list, another set's) of equal questions."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # compared by value, like a list

    def __repr__(self) -> str:
        return f"<CompactQuestions: {len(self)} questions>"

    def id_of(self, index: int) -> str:
        """Question ``index``'s id, without building the question."""
        c = self._c
        return _text(c.id_bytes, c.id_end, index)

    def fingerprint_records(self, rows: Iterable[int]) -> list[list[object]]:
        """``fingerprint_record()`` of each of ``rows``' questions."""
        return list(map(self._c.record, rows))

    def answer_gists(self) -> list[str]:
        return list(self._c.gists.values())

    def judged(self) -> bool:
        """Whether any question has judgments beyond a plain list."""
        return self._c.judged_end is not None and len(self._c.judged) > 0

    def holds(self, char: str) -> bool:
        """Whether ``char`` is in an id, a text, a hard class or a label (not a gist)."""
        c = self._c
        encoded = char.encode("utf-8", "surrogatepass")
        if encoded in c.id_bytes or encoded in c.text_bytes:
            return True
        return any(char in label for label in (*c.table, *filter(None, c.classes)))

    def duplicates(self) -> Iterator[tuple[int, int]]:
        """``(row, first)`` for every row whose id an earlier row ``first`` has, by id."""
        c = self._c
        data, ends = c.id_bytes, c.id_end
        previous, first = None, 0
        for row in self.by_id():
            key = data[ends[row - 1] if row else 0 : ends[row]]
            if key == previous:
                yield row, first
            else:
                previous, first = key, row

    def by_id(self) -> array[int]:
        """The rows sorted by id, equal ids in row order (as ``sorted(key=id)`` orders
        them); computed once. UTF-8 bytes sort as their code points, so the ids are
        compared as slices of the buffer, never built as strings."""
        if self._by_id is None:
            c = self._c
            data, ends = c.id_bytes, c.id_end

            def key(row: int) -> bytes | bytearray:
                return data[ends[row - 1] if row else 0 : ends[row]]

            self._by_id = array("I", sorted(range(len(self)), key=key))
        return self._by_id


def _text(data: bytes | bytearray, ends: array[int], row: int) -> str:
    start = ends[row - 1] if row else 0
    return data[start : ends[row]].decode("utf-8", "surrogatepass")


class _Columns:
    __slots__ = (
        "class_of",
        "classes",
        "forms",
        "gists",
        "grade",
        "id_bytes",
        "id_end",
        "judged",
        "judged_end",
        "judged_from",
        "label_end",
        "labels",
        "table",
        "text_bytes",
        "text_end",
    )

    def __init__(self) -> None:
        self.id_bytes: bytes | bytearray = bytearray()
        self.id_end = array("Q")
        self.text_bytes: bytes | bytearray = bytearray()
        self.text_end = array("Q")
        #: Every distinct expected document id; ``labels`` are indices into it.
        self.table: list[str] = []
        self.labels = array("I")
        self.label_end = array("Q")
        self.forms = bytearray()
        self.classes: list[str | None] = [None]
        self.class_of = array("I")
        self.gists: dict[int, str] = {}
        #: Judged documents (indices into ``table``) and their grades, for the rows from
        #: ``judged_from`` on; ``judged_end`` stays ``None`` until a row has judgments.
        self.judged = array("I")
        self.grade = array("i")
        self.judged_end: array[int] | None = None
        self.judged_from = 0

    def judgments(self, row: int) -> tuple[tuple[str, int], ...]:
        ends = self.judged_end
        if ends is None or row < self.judged_from:
            return ()
        at = row - self.judged_from
        start = ends[at - 1] if at else 0
        end = ends[at]
        if start == end:
            return ()
        table = self.table
        docs = [table[i] for i in self.judged[start:end]]
        return tuple(zip(docs, self.grade[start:end], strict=True))

    def record(self, row: int) -> list[object]:
        """``GoldenQuestion.fingerprint_record`` of the row, without building the question."""
        start = self.label_end[row - 1] if row else 0
        table = self.table
        record: list[object] = [
            _text(self.id_bytes, self.id_end, row),
            _text(self.text_bytes, self.text_end, row),
            _FORMS[self.forms[row]].value,
            self.classes[self.class_of[row]],
            sorted([table[i] for i in self.labels[start : self.label_end[row]]]),
        ]
        judgments = self.judgments(row)
        if judgments:
            record.append(sorted([doc, grade] for doc, grade in judgments))
        return record

    def question(self, row: int) -> GoldenQuestion:
        start = self.label_end[row - 1] if row else 0
        table = self.table
        return GoldenQuestion(
            _text(self.id_bytes, self.id_end, row),
            _text(self.text_bytes, self.text_end, row),
            _FORMS[self.forms[row]],
            tuple([table[i] for i in self.labels[start : self.label_end[row]]]),
            self.classes[self.class_of[row]],
            self.gists.get(row),
            self.judgments(row),
        )


class CompactQuestionBuilder:
    """Takes questions one at a time; only the columns are kept."""

    __slots__ = ("_c", "_class_index", "_label_index")

    def __init__(self) -> None:
        self._c = _Columns()
        self._label_index: dict[str, int] = {}
        self._class_index: dict[str | None, int] = {None: 0}

    def __len__(self) -> int:
        return len(self._c.forms)

    def add(self, q: GoldenQuestion) -> int:
        """Pack ``q``; returns its row. Whatever can fail (a field of the wrong type)
        fails before a column changes."""
        c = self._c
        qid = q.id.encode("utf-8", "surrogatepass")
        text = q.question.encode("utf-8", "surrogatepass")
        form = _FORM_INDEX[q.form]
        index = self._label_index
        found = [index.get(doc) for doc in q.expected_document_ids]
        labels: list[int] = found  # type: ignore[assignment]  # unless a label is new:
        if None in found:
            labels = [self._label(doc) for doc in q.expected_document_ids]
        grades = array("i", [grade for _, grade in q.judgments])  # a grade past 2**31 fails
        judged = [self._label(doc) for doc, _ in q.judgments]
        hard_class = self._class(q.hard_class)
        gist = q.answer_gist
        row = len(c.forms)
        if judged and c.judged_end is None:
            c.judged_end, c.judged_from = array("Q"), row
        if c.judged_end is not None:
            c.judged.extend(judged)
            c.grade.extend(grades)
            c.judged_end.append(len(c.judged))
        c.id_bytes += qid
        c.id_end.append(len(c.id_bytes))
        c.text_bytes += text
        c.text_end.append(len(c.text_bytes))
        c.labels.extend(labels)
        c.label_end.append(len(c.labels))
        c.class_of.append(hard_class)
        if gist is not None:
            c.gists[row] = gist
        c.forms.append(form)  # last: the row count
        return row

    def build(self) -> CompactQuestions:
        """The questions added so far; adding more afterwards is not allowed."""
        c = self._c
        c.id_bytes = bytes(c.id_bytes)  # slices of bytes are bytes: the sort keys of ``by_id``
        self._c = _Columns()
        self._label_index = {}
        self._class_index = {None: 0}
        return CompactQuestions(c)

    def _label(self, doc: str) -> int:
        if type(doc) is not str:
            raise TypeError(f"expected document ids are strings, got {doc!r}")
        at = self._label_index.get(doc)
        if at is None:
            at = self._label_index[doc] = len(self._c.table)
            self._c.table.append(intern(doc))
        return at

    def _class(self, hard_class: str | None) -> int:
        at = self._class_index.get(hard_class)
        if at is None:
            at = self._class_index[hard_class] = len(self._c.classes)
            self._c.classes.append(hard_class)
        return at
