"""The findings of the pull request as a table: one row per finding."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType

from syncdesk.services.review.pull_request import FindingsData
from syncdesk.services.review.reply import label
from syncdesk.services.sanitize import one_line
from syncdesk.tui.widgets.columns import Column, fit_columns
from syncdesk.tui.widgets.row_table import RowTable

SEVERITY_STYLES = {"CRITICAL": "bold red", "IMPORTANT": "yellow", "HIGH": "bold red"}

# The title takes whatever width is left; on a narrow table the severity goes
# (the detail pane's first line says it), never where the cited lines come from.
COLUMNS = (
    Column("Id", "id", 5),
    Column("Severity", "severity", 9, drop=1),
    Column("Title", "title", 0),
    Column("Origin", "origin", 16),
    Column("Disposition", "disposition", 26),
)
MIN_TITLE = 20


class FindingsTable(RowTable[Text]):
    """The row key is the finding's id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="findings.down"),
        Binding("k", "cursor_up", "Up", show=False, id="findings.up"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._findings: FindingsData | None = None  # DataTable's own _data holds its cells
        self._columns: list[tuple[Column, int]] = []

    def on_resize(self, event: events.Resize) -> None:
        if self._fitted_columns() != self._columns:
            self._rebuild()

    def _fitted_columns(self) -> list[tuple[Column, int]]:
        # Keep room for the vertical scrollbar, so the last column is never cut off.
        width = self.size.width - self.styles.scrollbar_size_vertical
        return fit_columns(COLUMNS, width, MIN_TITLE)

    def show(self, data: FindingsData) -> None:
        """Replace the rows, keeping the cursor on the same finding."""
        self._findings = data
        self._rebuild()

    def _rebuild(self) -> None:
        current = self.selected_id
        self.clear(columns=True)
        self._columns = self._fitted_columns()
        for column, width in self._columns:
            self.add_column(column.label, key=column.key, width=width)
        data = self._findings
        if data is None:
            return
        for view in data.views:
            finding = view.finding
            decided = data.decision(finding.id)
            if decided is not None and decided.disposition is not None:
                disposition = Text(label(decided.disposition), "bold")
            else:
                disposition = Text(f"({label(view.suggested)})", "dim italic")
            cells = {
                "id": Text(one_line(finding.label)),
                "severity": Text(
                    one_line(finding.severity), SEVERITY_STYLES.get(finding.severity, "")
                ),
                "title": Text(one_line(finding.title or finding.body[:80])),
                "origin": Text(view.summary or "no cited lines"),
                "disposition": disposition,
            }
            for column, width in self._columns:
                cells[column.key].truncate(width, overflow="ellipsis")
            self.add_row(*(cells[column.key] for column, _ in self._columns), key=finding.id)
        if current is not None and current in {v.finding.id for v in data.views}:
            self.move_cursor(row=self.get_row_index(current))

    @property
    def selected_id(self) -> str | None:
        """The id of the finding under the cursor."""
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return None if key.value is None else str(key.value)
