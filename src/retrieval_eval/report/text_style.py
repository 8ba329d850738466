"""Styles of the human report: colour and box lines on a terminal, plain ASCII elsewhere."""

from __future__ import annotations

import io
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.table import Table

#: Header underlined with dashes, no other lines: reads well in CI logs and files.
PLAIN_BOX = box.Box("    \n    \n -- \n    \n    \n -- \n    \n    \n", ascii=True)


@dataclass(frozen=True, slots=True)
class Style:
    """Markup helpers; with ``color`` False every helper returns the bare text."""

    color: bool

    def _wrap(self, style: str, text: str) -> str:
        return f"[{style}]{text}[/{style}]" if self.color else text

    def heading(self, text: str) -> str:
        return self._wrap("bold", text)

    def good(self, text: str) -> str:
        return self._wrap("green", text)

    def bad(self, text: str) -> str:
        return self._wrap("red", text)

    def warn(self, text: str) -> str:
        return self._wrap("yellow", text)

    def dim(self, text: str) -> str:
        return self._wrap("dim", text)

    def hit(self, hit: bool | None) -> str:
        if hit is None:
            return self.warn("error")
        return self.good("hit") if hit else self.bad("miss")

    def table(self, title: str | None) -> Table:
        return Table(
            title=title,
            title_justify="left",
            box=box.SIMPLE_HEAD if self.color else PLAIN_BOX,
            show_edge=False,
            pad_edge=False,
            title_style="bold" if self.color else "",
            header_style="bold" if self.color else "",
        )


def string_console(width: int, color: bool) -> tuple[Console, io.StringIO]:
    """A console that renders into a string: ANSI styles only when ``color``."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
    )
    return console, buffer
