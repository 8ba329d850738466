"""Tables that fit a terminal without breaking what people copy.

A column is either kept whole on one line (run ids, dates, rates: ``wrap=False``) or may
wrap at spaces (labels, verdict notes), never inside a word: a wrapping column is never
narrower than its longest word, so an id, a path or a token is never split across
lines (``keep_words_whole`` does the same for any rich table). When the table is wider
than the terminal, the
table's ``steps`` are applied in their stated order, one at a time, until it fits: a
step shortens a column (``Shorten``) or drops it (``Drop``). Cells are plain text, with
data already made visible (``safe_text.visible``) so that a newline in a cell is the
table's own line break; they are escaped for rich markup when the table is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from retrieval_eval.report.text_style import Style

#: Narrowest a wrapping column gets before steps are applied to make room for it.
MIN_WRAP_WIDTH = 16
#: Space between two columns as the report styles draw them.
GAP = 3


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    justify: Literal["left", "right"] = "left"
    #: May wrap at spaces; otherwise every cell stays on one line, never cut or folded.
    wrap: bool = False


@dataclass(frozen=True, slots=True)
class Shorten:
    """Replace every cell of ``column`` (and its header, if ``header``) by a shorter form."""

    column: str
    cell: Callable[[str], str]
    header: str | None = None


@dataclass(frozen=True, slots=True)
class Drop:
    column: str


Step = Shorten | Drop


def fit(
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
    steps: Sequence[Step],
) -> tuple[list[Column], list[list[str]]]:
    """The columns and rows left after the fewest ``steps`` that make them fit ``width``
    (all of them when even that is too wide: one-line cells are still never broken)."""
    cols, body = list(columns), [list(r) for r in rows]
    for i in reversed(range(len(cols))):  # a column with nothing in it
        if cols[i].name and body and not any(row[i] for row in body):
            del cols[i]
            for row in body:
                del row[i]
    for step in steps:
        if _needed(cols, body) <= width:
            break
        names = [c.name for c in cols]
        if step.column not in names:
            continue
        i = names.index(step.column)
        if isinstance(step, Drop):
            del cols[i]
            for row in body:
                del row[i]
        else:
            if step.header is not None:
                cols[i] = replace(cols[i], name=step.header)
            for row in body:
                row[i] = step.cell(row[i])
    return cols, body


def _needed(cols: Sequence[Column], body: Sequence[Sequence[str]]) -> int:
    total = GAP * (len(cols) - 1)
    for i, c in enumerate(cols):
        longest = max([_longest_line(c.name), *(_longest_line(r[i]) for r in body)])
        word = max([_longest_word(c.name), *(_longest_word(r[i]) for r in body)])
        total += max(word, min(longest, MIN_WRAP_WIDTH)) if c.wrap else longest
    return total


def _longest_line(text: str) -> int:
    return max((len(line) for line in text.split("\n")), default=0)


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def fitted_table(
    style: Style,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
    steps: Sequence[Step],
    sections: Collection[int] = (),
) -> Table:
    """A rich table of ``rows`` fitted to ``width`` (see ``fit``), with a section line
    after each row whose index is in ``sections``."""
    cols, body = fit(columns, rows, width, steps)
    widths = [max([_longest_line(c.name), *(_longest_line(r[i]) for r in body)])
              for i, c in enumerate(cols)]  # fmt: skip
    wrapping = [i for i, c in enumerate(cols) if c.wrap]
    room = width - GAP * (len(cols) - 1) - sum(w for c, w in zip(cols, widths, strict=True)
                                                if not c.wrap)  # fmt: skip
    fixed: dict[int, int] = {}
    if sum(widths[i] for i in wrapping) > room:  # share the room, words kept whole
        lows = [max([_longest_word(cols[i].name), *(_longest_word(r[i]) for r in body), 1])
                for i in wrapping]  # fmt: skip
        fixed = dict(zip(wrapping, _shares(lows, [widths[i] for i in wrapping], room),
                         strict=True))  # fmt: skip
    table = style.table(title=None)
    for i, (c, widest) in enumerate(zip(cols, widths, strict=True)):
        table.add_column(
            c.name,
            justify=c.justify,
            no_wrap=not c.wrap,
            # wide enough for its longest word: "fold" then never splits one
            overflow="fold" if c.wrap else "ignore",
            width=fixed.get(i),
            min_width=None if c.wrap else widest,
        )
    for n, row in enumerate(body):
        # rich does not justify a column whose overflow is "ignore": right-aligned
        # one-line cells are padded here instead
        table.add_row(*(
            escape(cell.rjust(widest) if c.justify == "right" and not c.wrap else cell)
            for c, cell, widest in zip(cols, row, widths, strict=True)
        ))  # fmt: skip
        if n in sections:
            table.add_section()
    return table


def keep_words_whole(console: Console, table: Table) -> bool:
    """Give ``table``'s wrapping columns fixed widths, each at least its longest word, so
    that rich wraps their cells at spaces only; False (the table untouched) when even so
    it is wider than the console. Rich itself narrows a table too wide for the terminal
    by folding words (a run id or a path split over two lines); here the room left by the
    one-line columns is shared among the wrapping ones instead."""
    options = console.options
    wraps, fixed, lows, highs = [], 0, [], []
    for column in table.columns:
        sizes = [Measurement.get(console, options, cell) for cell in [column.header, *column.cells]]
        widest = max((m.maximum for m in sizes), default=0)
        if column.no_wrap or column.width is not None:
            fixed += column.width if column.width is not None else widest
            continue
        wraps.append(column)
        lows.append(max((m.minimum for m in sizes), default=1))
        highs.append(max(widest, 1))
    room = console.width - fixed - GAP * (len(table.columns) - 1)
    if sum(lows) > room:
        return False
    if sum(highs) > room:
        for column, share in zip(wraps, _shares(lows, highs, room), strict=True):
            column.width = share  # its longest word fits: rich folds none
    return True


def _shares(lows: Sequence[int], highs: Sequence[int], room: int) -> list[int]:
    """Widths between ``lows`` and ``highs`` summing to at most ``room``: each column its
    longest word, then the room left given out evenly to those that can use it."""
    shares = list(lows)
    left = room - sum(shares)
    while left > 0:
        hungry = [i for i, (s, h) in enumerate(zip(shares, highs, strict=True)) if s < h]
        if not hungry:
            break
        each = max(1, left // len(hungry))
        for i in hungry:
            give = min(each, highs[i] - shares[i], left)
            shares[i] += give
            left -= give
            if not left:
                break
    return shares
