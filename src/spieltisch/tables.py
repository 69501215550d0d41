"""Rich tables whose numbers are never cut, even in an 80-column terminal.

Rich fits a wide table to the terminal by wrapping its columns and, as a last
resort, by shortening every column, which cuts a cell with an ellipsis
(``1,307…``). A number column here never wraps (so it is the text columns that
give way first) and folds instead of cutting: in the worst case a number runs
onto a second line, but every digit is shown. :func:`fits` tells a caller
whether to switch to its narrow layout (shorter headers, stacked cells).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def number_column(table: Table, header: str, **kwargs: Any) -> None:
    """A right-aligned column of figures that is never cut (see the module)."""
    kwargs.setdefault("justify", "right")
    table.add_column(header, no_wrap=True, overflow="fold", **kwargs)


def text_column(table: Table, header: str, **kwargs: Any) -> None:
    """A column of words that wraps, and folds a word too long for it (never cuts)."""
    table.add_column(header, overflow="fold", **kwargs)


def fits(table: Table, width: int) -> bool:
    """Whether ``table`` is shown at ``width`` columns without wrapping any cell."""
    measure = Console(width=max(width, 1), color_system=None).measure(table)
    return measure.maximum <= width
