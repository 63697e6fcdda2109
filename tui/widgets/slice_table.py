"""The slice as a table: one row per imported main commit."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType

from syncdesk.services.sync.models import Slice, SliceCommit
from syncdesk.tui.text import literal
from syncdesk.tui.widgets.columns import Column, fit_columns
from syncdesk.tui.widgets.row_table import RowTable

SIGNOFF_STYLES = {"✓": "green", "≠": "yellow", "✗": "bold red"}

# The subject takes whatever width is left. On a narrow table the date goes
# first, then the author (the commit view shows both); the sign-off and
# signature columns, what a maintainer scans the slice for, always stay.
COLUMNS = (
    Column("#", "index", 3),
    Column("SHA", "sha", 8),
    Column("Subject", "subject", 0),
    Column("Author", "author", 16, drop=2),
    Column("Date", "date", 10, drop=1),
    Column("PR", "pr", 6),
    Column("DCO", "dco", 3),
    Column("Signed", "signed", 6),
)
MIN_SUBJECT = 24


class SliceTable(RowTable[Text]):
    """The slice's commits; the row key is the commit's full SHA."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open commit", id="slice.open"),
        Binding("j", "cursor_down", "Down", show=False, id="slice.down"),
        Binding("k", "cursor_up", "Up", show=False, id="slice.up"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._slice: Slice | None = None
        self._columns: list[tuple[Column, int]] = []

    def show(self, the_slice: Slice) -> None:
        """Replace the rows with ``the_slice``'s commits."""
        self._slice = the_slice
        self._rebuild()

    def on_resize(self, event: events.Resize) -> None:
        if self._fitted_columns() != self._columns:
            self._rebuild()

    def _fitted_columns(self) -> list[tuple[Column, int]]:
        # Keep room for the vertical scrollbar, so the last column is never cut off.
        width = self.size.width - self.styles.scrollbar_size_vertical
        return fit_columns(COLUMNS, width, MIN_SUBJECT)

    def _rebuild(self) -> None:
        row = self.cursor_row
        self.clear(columns=True)
        self._columns = self._fitted_columns()
        for column, width in self._columns:
            self.add_column(column.label, key=column.key, width=width)
        if self._slice is not None:
            for commit in self._slice.commits:
                self.add_row(*self._cells(commit), key=commit.sha)
            self.move_cursor(row=min(row, max(0, self.row_count - 1)))

    def _cells(self, commit: SliceCommit) -> list[Text]:
        """The row's cells, one for each column shown."""
        mark = commit.signoff_mark
        subject = literal(commit.subject)
        if commit.is_merge:
            subject = Text.assemble(("merge ", "bold yellow"), subject)
        author = literal(commit.author_name)
        cells = {
            "index": Text(str(commit.index), justify="right"),
            "sha": Text(commit.short_sha, style="bold"),
            "subject": subject,
            "author": author,
            "date": Text(commit.date[:10]),
            "pr": Text(f"#{commit.pr}" if commit.pr else "", justify="right"),
            "dco": Text(mark, style=SIGNOFF_STYLES[mark], justify="center"),
            "signed": Text("✓" if commit.signed else "", justify="center"),
        }
        for column, width in self._columns:
            cells[column.key].truncate(width, overflow="ellipsis")
        return [cells[column.key] for column, _ in self._columns]

    @property
    def selected_sha(self) -> str | None:
        """The full SHA of the commit under the cursor."""
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return key.value
