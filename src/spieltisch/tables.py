"""Rich tables whose numbers are never cut, even in an 80-column terminal.

Rich fits a wide table to the terminal by wrapping its columns and, as a last
resort, by shortening every column, which cuts a cell with an ellipsis
(``1,307…``). A column here folds instead of cutting: in the worst case a
number runs onto a second line, but every digit is shown. :func:`fits` tells a
caller whether to switch to its narrow layout (shorter headers, stacked cells)
so that at 80 columns nothing needs to fold.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table


def number_column(table: Table, header: str, **kwargs: Any) -> None:
    """A right-aligned column of figures that is never cut (see the module)."""
    kwargs.setdefault("justify", "right")
    text_column(table, header, **kwargs)


def text_column(table: Table, header: str, **kwargs: Any) -> None:
    """A column of words that wraps, and folds a word too long for it (never cuts);
    at least as wide as the longest word of its header, which is never folded."""
    kwargs.setdefault("min_width", max((len(word) for word in header.split()), default=1))
    table.add_column(header, overflow="fold", **kwargs)


def fits(table: Table, width: int) -> bool:
    """Whether ``table`` is shown at ``width`` columns without wrapping any cell."""
    measure = Console(width=10_000, color_system=None).measure(table)
    return measure.maximum <= width


def lighter(table: Table, width: int) -> Table:
    """``table`` with a frame of lines under the header only (two columns fewer
    per column gap) when it does not fit ``width`` with its own frame."""
    if not fits(table, width):
        table.box = box.SIMPLE_HEAD
        table.pad_edge = False
    return table
