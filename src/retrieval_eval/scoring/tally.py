"""Group metrics from outcomes by counting rows, exactly (the engine behind ``metrics``).

A question's figures (its hits at each k; MRR, recall and nDCG at each k) depend on a few
things: its hits, the ranks of its expected documents among the deepest k's best, and how
many documents it expects. Each outcome is reduced, in one pass, to its *row*: one per
distinct combination of those, its figures computed once however many questions share
it (a run has far fewer rows than questions). A group (the run, a form, a hard class) is
then a count per row, and its metrics are weighted sums:

- counts (answered, errors, hits, no-answer questions) are sums of integers;
- a rank figure's mean is the exact sum of its per-question values, rounded once, over
  the number of questions. Floats are dyadic rationals, so each row's value is held as
  an integer multiple of one common power of two; weighted sums are then exact integer
  arithmetic, and the one rounding (``int / int`` is correctly rounded) gives the very
  float ``math.fsum`` gives over the per-question values, in any order.

Questions are counted by cell (form, hard class) and row. A row's columns are packed in
one integer, side by side with room to never carry into each other, so a cell's sums are
one multiply-add per row it holds; the run, each form and each hard class are then sums
of whole cells.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, islice, repeat
from operator import mul
from typing import Literal

from retrieval_eval.records.metrics import GroupMetrics, NoAnswerStats
from retrieval_eval.records.outcome import UNCLASSIFIED, QuestionOutcome
from retrieval_eval.scoring.protocol import hits_at, target_ranks
from retrieval_eval.scoring.ranks import figures, hit_rate_key, rank_names
from retrieval_eval.stats.intervals import wilson

#: What a row's figures depend on: ``(hits, positions, total)``, positions being the ranks
#: (0-based, ascending) of the distinct expected documents found among the deepest k's
#: best, total their number; ``(hits, None, empty)`` without expected documents (empty:
#: 1 when nothing came back); ``ERROR_KEY`` for a failed retrieval.
Key = tuple[tuple[bool, ...], tuple[int, ...] | None, int]
ERROR_KEY: Key = ((), None, -1)

#: The integer columns of a row, before its hits (one per k) and its rank figures'
#: numerators (three per k).
_ANSWERED, _ERRORS, _NO_ANSWER, _EMPTY, _SCORED = range(5)
_HITS = 5

#: Bits of a float's significand: ``ldexp(v, _MANTISSA - frexp(v)[1])`` is a whole number.
_MANTISSA = 53
_LITTLE: Literal["little"] = "little"
#: Floats are below ``2**_FLOAT_EXPONENTS``: ``ldexp`` must stay under it.
_FLOAT_EXPONENTS = 1024


def row_key(outcome: QuestionOutcome, ks: tuple[int, ...]) -> Key:
    """The key of an answered outcome's row (``ks`` normalized)."""
    ranked = outcome.ranked_document_ids
    expected = outcome.expected_document_ids
    try:
        hits = tuple(map(outcome.hits.__getitem__, ks))
    except KeyError:  # scored at other cutoffs: compute them
        computed = hits_at(ranked, expected, ks)
        hits = tuple([computed[k] for k in ks])
    if not expected:
        return (hits, None, 0 if ranked else 1)
    if not hits[-1]:  # nothing expected among the deepest k: every rank figure is 0
        return (hits, (), 1)
    total = len(set(expected)) if len(expected) > 1 else 1
    return (hits, tuple(target_ranks(ranked, expected, ks[-1])), total)


class Tally:
    """Outcomes reduced to rows and counted by (form, hard class, row) in one pass.

    Built from outcomes at once, or one question at a time (``add``, as a run in progress
    scores its answers): the same counts either way, so the same metrics."""

    __slots__ = ("_cells", "_keys", "_ks", "_sums")

    def __init__(self, outcomes: Iterable[QuestionOutcome], ks: tuple[int, ...]) -> None:
        self._ks = ks
        self._keys: dict[Key, int] = {}
        #: (form, hard class) -> row -> how many questions of that cell have that row.
        self._cells: dict[tuple[str, str | None], dict[int, int]] = {}
        self._sums: tuple[dict[tuple[str, str | None], int], _Layout] | None = None
        for outcome in outcomes:
            key = ERROR_KEY if outcome.error is not None else row_key(outcome, ks)
            self.add(outcome.form, outcome.hard_class, key)

    def add(self, form: str, hard_class: str | None, key: Key) -> None:
        """Count one question of ``form`` and ``hard_class`` whose row is ``key``
        (``row_key`` of its outcome; ``ERROR_KEY`` for a failed retrieval)."""
        keys = self._keys
        row = keys.get(key)
        if row is None:
            row = keys[key] = len(keys)
        counts = self._cells.get((form, hard_class))
        if counts is None:
            counts = self._cells[form, hard_class] = {}
        counts[row] = counts.get(row, 0) + 1
        self._sums = None

    def _cell_sums(self) -> tuple[dict[tuple[str, str | None], int], _Layout]:
        """Each cell's columns summed over its questions, packed in one integer (see
        ``_Layout``); computed once the rows are known, each (cell, row) pair once."""
        if self._sums is None:
            questions = sum(sum(counts.values()) for counts in self._cells.values())
            packed, layout = _packed_rows(self._keys, self._ks, questions)
            self._sums = (
                {
                    cell: sum(map(mul, map(packed.__getitem__, counts), counts.values()))
                    for cell, counts in self._cells.items()
                },
                layout,
            )
        return self._sums

    def overall(self) -> GroupMetrics:
        sums, layout = self._cell_sums()
        return self._metrics(sum(sums.values()), layout)

    def by_form(self) -> dict[str, GroupMetrics]:
        """By form value (``"MATCH"``, ``"GAP"``, ``"UNLABELLED"``), sorted."""
        return self._by(lambda form, _: str(form))

    def by_class(self) -> dict[str, GroupMetrics]:
        """By hard class, ``"unclassified"`` for questions without one, sorted."""
        return self._by(lambda _, hard_class: hard_class or UNCLASSIFIED)

    def _by(self, label: Callable[[str, str | None], str]) -> dict[str, GroupMetrics]:
        sums, layout = self._cell_sums()
        groups: dict[str, int] = {}
        for (form, hard_class), total in sums.items():
            name = label(form, hard_class)
            groups[name] = groups.get(name, 0) + total
        return {name: self._metrics(groups[name], layout) for name in sorted(groups)}

    def _metrics(self, total: int, layout: _Layout) -> GroupMetrics:
        """A group's metrics from its columns summed (``total``, packed)."""
        ks = self._ks
        sums = layout.unpack(total)
        answered, no_answer, empty, scored = (sums[i] for i in (0, 2, 3, 4))
        values: dict[str, float] = {}
        intervals = {}
        if answered:
            for name, successes in zip(
                map(hit_rate_key, ks), sums[_HITS : _HITS + len(ks)], strict=True
            ):
                estimate = wilson(successes, answered)
                values[name] = estimate.rate
                intervals[name] = estimate
        if scored:
            names = rank_names(ks)
            scale = layout.scale
            for name, numerator in zip(names, sums[_HITS + len(ks) :], strict=True):
                values[name] = numerator / scale / scored  # exact sum, rounded once
        return GroupMetrics(
            count=answered,
            errors=sums[_ERRORS],
            values=values,
            intervals=intervals,
            no_answer=NoAnswerStats(no_answer, empty, no_answer - empty) if no_answer else None,
        )


class _Layout:
    """How a row's columns sit in one integer: column i in bits [i * width, (i + 1) *
    width), wide enough that the sum over every question of the run never carries from one
    column into the next. So a group's columns are summed with one multiply-add per row
    (weight times packed row) instead of one per column, and read back at the end."""

    __slots__ = ("columns", "scale", "width")

    def __init__(self, columns: int, scale: int, largest: int) -> None:
        self.columns = columns
        #: A rank figure's value is its numerator / ``scale`` (a power of two), exactly.
        self.scale = scale
        #: Whole bytes, for ``int.to_bytes``; ``largest`` bounds any column's sum.
        self.width = largest.bit_length() // 8 + 1

    def pack(self, columns: Iterable[int]) -> bytes:
        """Columns (non-negative, each at most ``largest``), as one row's bytes."""
        return b"".join(map(int.to_bytes, columns, repeat(self.width), repeat(_LITTLE)))

    def unpack(self, total: int) -> list[int]:
        width = self.width
        data = total.to_bytes(width * self.columns, "little")
        return [
            int.from_bytes(data[at : at + width], "little")
            for at in range(0, width * self.columns, width)
        ]


def _packed_rows(
    keys: Iterable[Key], ks: tuple[int, ...], questions: int
) -> tuple[list[int], _Layout]:
    """Each key's integer columns packed in one integer, in key order, and their layout
    (rank figures as whole multiples of one power of two: ``scaled_integers``)."""
    heads: list[list[int]] = []
    ranks: list[list[float] | None] = []
    for hits, positions, count in keys:
        if count < 0:  # an error
            heads.append([0, 1, 0, 0, 0, *(0 for _ in ks)])
            ranks.append(None)
        elif positions is None:  # no expected document
            heads.append([1, 0, 1, count, 0, *map(int, hits)])
            ranks.append(None)
        else:
            heads.append([1, 0, 0, 0, 1, *map(int, hits)])
            ranks.append(figures(positions, count, ks))
    whole, shift = scaled_integers([value for values in ranks if values for value in values])
    numerators = iter(whole)
    scale = 1 << shift
    columns = _HITS + 4 * len(ks)
    # A column's sum is at most its largest value (1 for counts and hits) per question.
    layout = _Layout(columns, scale, max(max(whole, default=0), 1) * max(questions, 1))
    nothing = (0,) * (3 * len(ks))
    pack = layout.pack
    rows = [
        int.from_bytes(
            pack(chain(head, islice(numerators, 3 * len(ks)) if values else nothing)), "little"
        )
        for head, values in zip(heads, ranks, strict=True)
    ]
    return rows, layout


def scaled_integers(values: Sequence[float]) -> tuple[list[int], int]:
    """Non-negative finite floats as whole numbers ``n`` and one ``shift`` such that each
    value is exactly ``n / 2**shift`` (floats are dyadic rationals).

    ``ldexp`` scales a float by a power of two exactly, and the shift is chosen from the
    smallest non-zero value, whose exponent is the lowest: every value, no smaller, becomes
    a whole number. All in C, no per-value fraction."""
    smallest = min(filter(None, values), default=1.0)
    shift = max(0, _MANTISSA - math.frexp(smallest)[1])
    if shift + math.frexp(max(values, default=0.0))[1] < _FLOAT_EXPONENTS:
        return list(map(int, map(math.ldexp, values, repeat(shift)))), shift
    # Scaled, some value would leave the float range (figures, at most 1, never do): the
    # same integers from each value's fraction.
    return [
        n << (shift - d.bit_length() + 1) for n, d in map(float.as_integer_ratio, values)
    ], shift
