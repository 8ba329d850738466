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
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from operator import mul

from retrieval_eval.records import UNCLASSIFIED, GroupMetrics, NoAnswerStats, QuestionOutcome
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

#: One row's integer columns (see above).
Row = tuple[int, ...]
#: (form, hard class, row index): the questions of one cell share all three.
_Cell = tuple[str, str | None, int]


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

    __slots__ = ("_cells", "_keys", "_ks", "_table")

    def __init__(self, outcomes: Iterable[QuestionOutcome], ks: tuple[int, ...]) -> None:
        self._ks = ks
        self._keys: dict[Key, int] = {}
        self._cells: dict[_Cell, int] = {}
        self._table: tuple[list[Row], int] | None = None
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
            self._table = None
        cell = (form, hard_class, row)
        cells = self._cells
        cells[cell] = cells.get(cell, 0) + 1

    def _tables(self) -> tuple[list[Row], int]:
        """Each row's integer columns and their scale, computed once the rows are known."""
        if self._table is None:
            self._table = _rows(self._keys, self._ks)
        return self._table

    def overall(self) -> GroupMetrics:
        counts: dict[int, int] = {}
        for (_, _, row), n in self._cells.items():
            counts[row] = counts.get(row, 0) + n
        return self._metrics(counts)

    def by_form(self) -> dict[str, GroupMetrics]:
        """By form value (``"MATCH"``, ``"GAP"``, ``"UNLABELLED"``), sorted."""
        return self._by(lambda form, _: str(form))

    def by_class(self) -> dict[str, GroupMetrics]:
        """By hard class, ``"unclassified"`` for questions without one, sorted."""
        return self._by(lambda _, hard_class: hard_class or UNCLASSIFIED)

    def _by(self, label: Callable[[str, str | None], str]) -> dict[str, GroupMetrics]:
        groups: dict[str, dict[int, int]] = {}
        for (form, hard_class, row), n in self._cells.items():
            counts = groups.setdefault(label(form, hard_class), {})
            counts[row] = counts.get(row, 0) + n
        return {name: self._metrics(groups[name]) for name in sorted(groups)}

    def _metrics(self, counts: Mapping[int, int]) -> GroupMetrics:
        """A group's metrics from ``row -> how many of its questions have that row``."""
        ks = self._ks
        weights = list(counts.values())
        table, scale = self._tables()
        rows = map(table.__getitem__, counts)
        sums = [sum(map(mul, column, weights)) for column in zip(*rows, strict=True)]
        if not sums:
            sums = [0] * (_HITS + 4 * len(ks))
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
            for name, numerator in zip(names, sums[_HITS + len(ks) :], strict=True):
                values[name] = numerator / scale / scored  # exact sum, rounded once
        return GroupMetrics(
            count=answered,
            errors=sums[_ERRORS],
            values=values,
            intervals=intervals,
            no_answer=NoAnswerStats(no_answer, empty, no_answer - empty) if no_answer else None,
        )


def _rows(keys: Iterable[Key], ks: tuple[int, ...]) -> tuple[list[Row], int]:
    """Each key's integer columns, in key order, and the common power of two ``scale``:
    a rank figure's value is its numerator / ``scale``, exactly."""
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
    ratios = [[v.as_integer_ratio() for v in values] for values in ranks if values]
    scale = max((d for values in ratios for _, d in values), default=1)
    nothing = (0,) * (3 * len(ks))
    exact = iter(ratios)
    rows = [
        (*head, *((n * (scale // d) for n, d in next(exact)) if values else nothing))
        for head, values in zip(heads, ranks, strict=True)
    ]
    return rows, scale
