"""Table columns that fit the table's width: one flexible column, the others dropped in order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# DataTable pads every cell with one space on each side (its cell_padding).
CELL_PADDING = 2


@dataclass(frozen=True, slots=True)
class Column:
    """A table column: its label, its key, and how it gives way on a narrow table.

    ``width`` 0 marks the flexible column, which takes whatever the others
    leave. ``drop`` 0 keeps a column at every width; otherwise the column goes
    when the flexible one would be narrower than its minimum, lowest ``drop``
    first.
    """

    label: str
    key: str
    width: int
    drop: int = 0


def fit_columns(columns: Sequence[Column], width: int, minimum: int) -> list[tuple[Column, int]]:
    """The columns a table ``width`` cells wide shows, in order, each with its width.

    ``width`` is what the cells may use (the table's width less its vertical
    scrollbar). The flexible column gets the rest, at least ``minimum``: on a
    table too narrow even with every droppable column gone, the table scrolls
    sideways rather than cut the flexible column to nothing.
    """
    shown = list(columns)
    droppable = sorted((c for c in columns if c.drop), key=lambda c: c.drop)
    while True:
        fixed = sum(c.width for c in shown) + CELL_PADDING * len(shown)
        rest = width - fixed
        if rest >= minimum or not droppable:
            break
        shown.remove(droppable.pop(0))
    return [(c, c.width or max(minimum, rest)) for c in shown]
