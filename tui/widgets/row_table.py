"""A table whose cursor is a row: Home and End go to the first and last row.

Textual's :class:`~textual.widgets.DataTable` binds Home and End to horizontal
scrolling (``scroll_home``/``scroll_end``) and keeps the row moves on
Ctrl+Home/Ctrl+End. In a list of commits, files or findings, Home is "the first
one": with the cursor left where it was, the next key acted on the wrong row
(Home then ``X`` closed F8 instead of F1). PageUp and PageDown already move the
cursor a page in row mode.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable

CellType = TypeVar("CellType")


class RowTable(DataTable[CellType]):
    """A :class:`DataTable` where Home/End move the row cursor to the first/last row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First row", show=False, id="table.first"),
        Binding("end", "scroll_bottom", "Last row", show=False, id="table.last"),
    ]
