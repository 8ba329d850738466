"""Tables that fit a terminal without breaking what people copy.

A column is either kept whole on one line (run ids, dates, rates: ``wrap=False``) or may
wrap at spaces (variants, labels). When the table is wider than the terminal, the
table's ``steps`` are applied in their stated order, one at a time, until it fits: a
step shortens a column (``Shorten``) or drops it (``Drop``). Cells are plain text, with
data already made visible (``safe_text.visible``) so that a newline in a cell is the
table's own line break; they are escaped for rich markup when the table is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rich.markup import escape
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
        total += min(longest, MIN_WRAP_WIDTH) if c.wrap else longest
    return total


def _longest_line(text: str) -> int:
    return max((len(line) for line in text.split("\n")), default=0)


def fitted_table(
    style: Style,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
    steps: Sequence[Step],
) -> Table:
    """A rich table of ``rows`` fitted to ``width`` (see ``fit``)."""
    cols, body = fit(columns, rows, width, steps)
    widths = [max([_longest_line(c.name), *(_longest_line(r[i]) for r in body)])
              for i, c in enumerate(cols)]  # fmt: skip
    table = style.table(title=None)
    for c, widest in zip(cols, widths, strict=True):
        table.add_column(
            c.name,
            justify=c.justify,
            no_wrap=not c.wrap,
            overflow="fold" if c.wrap else "ignore",
            min_width=None if c.wrap else widest,
        )
    for row in body:
        # rich does not justify a column whose overflow is "ignore": right-aligned
        # one-line cells are padded here instead
        table.add_row(*(
            escape(cell.rjust(widest) if c.justify == "right" and not c.wrap else cell)
            for c, cell, widest in zip(cols, row, widths, strict=True)
        ))  # fmt: skip
    return table
