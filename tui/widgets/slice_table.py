"""The slice as a table: one row per imported main commit."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from syncdesk.services.sync.models import Slice, SliceCommit
from syncdesk.tui.text import literal

SIGNOFF_STYLES = {"✓": "green", "≠": "yellow", "✗": "bold red"}

# (label, key, width); the subject takes whatever width is left.
COLUMNS = (
    ("#", "index", 3),
    ("SHA", "sha", 8),
    ("Subject", "subject", 0),
    ("Author", "author", 16),
    ("Date", "date", 10),
    ("PR", "pr", 6),
    ("DCO", "dco", 3),
    ("Signed", "signed", 6),
)
MIN_SUBJECT = 24


class SliceTable(DataTable[Text]):
    """The slice's commits; the row key is the commit's full SHA."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open commit", id="slice.open"),
        Binding("j", "cursor_down", "Down", show=False, id="slice.down"),
        Binding("k", "cursor_up", "Up", show=False, id="slice.up"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._slice: Slice | None = None
        self._subject_width = 0

    def show(self, the_slice: Slice) -> None:
        """Replace the rows with ``the_slice``'s commits."""
        self._slice = the_slice
        self._rebuild()

    def on_resize(self, event: events.Resize) -> None:
        if self._fitted_subject_width() != self._subject_width:
            self._rebuild()

    def _fitted_subject_width(self) -> int:
        # Every column has one cell of padding on each side; keep room for the
        # vertical scrollbar so the last column is never cut off.
        fixed = sum(width for _, _, width in COLUMNS) + 2 * len(COLUMNS)
        available = self.size.width - fixed - self.styles.scrollbar_size_vertical
        return max(MIN_SUBJECT, available)

    def _rebuild(self) -> None:
        row = self.cursor_row
        self.clear(columns=True)
        self._subject_width = self._fitted_subject_width()
        for label, key, width in COLUMNS:
            self.add_column(label, key=key, width=width or self._subject_width)
        if self._slice is not None:
            for commit in self._slice.commits:
                self.add_row(*self._cells(commit), key=commit.sha)
            self.move_cursor(row=min(row, max(0, self.row_count - 1)))

    def _cells(self, commit: SliceCommit) -> list[Text]:
        mark = commit.signoff_mark
        subject = literal(commit.subject)
        if commit.is_merge:
            subject = Text.assemble(("merge ", "bold yellow"), subject)
        subject.truncate(self._subject_width, overflow="ellipsis")
        author = literal(commit.author_name)
        author.truncate(COLUMNS[3][2], overflow="ellipsis")
        return [
            Text(str(commit.index), justify="right"),
            Text(commit.short_sha, style="bold"),
            subject,
            author,
            Text(commit.date[:10]),
            Text(f"#{commit.pr}" if commit.pr else "", justify="right"),
            Text(mark, style=SIGNOFF_STYLES[mark], justify="center"),
            Text("✓" if commit.signed else "", justify="center"),
        ]

    @property
    def selected_sha(self) -> str | None:
        """The full SHA of the commit under the cursor."""
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return key.value
