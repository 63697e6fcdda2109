"""The findings of the pull request as a table: one row per finding."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from syncdesk.services.review.pull_request import FindingsData
from syncdesk.services.review.reply import label
from syncdesk.services.sanitize import one_line

SEVERITY_STYLES = {"CRITICAL": "bold red", "IMPORTANT": "yellow", "HIGH": "bold red"}


class FindingsTable(DataTable[Text]):
    """The row key is the finding's id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False, id="findings.down"),
        Binding("k", "cursor_up", "Up", show=False, id="findings.up"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.add_column("Id", key="id", width=5)
        self.add_column("Severity", key="severity", width=9)
        self.add_column("Title", key="title", width=30)
        self.add_column("Origin", key="origin", width=16)
        self.add_column("Disposition", key="disposition", width=26)

    def show(self, data: FindingsData) -> None:
        """Replace the rows, keeping the cursor on the same finding."""
        current = self.selected_id
        self.clear()
        for view in data.views:
            finding = view.finding
            decided = data.decision(finding.id)
            if decided is not None:
                disposition = Text(label(decided.disposition), "bold")
            else:
                disposition = Text(f"({label(view.suggested)})", "dim italic")
            self.add_row(
                Text(one_line(finding.id)),
                Text(one_line(finding.severity), SEVERITY_STYLES.get(finding.severity, "")),
                Text(one_line(finding.title or finding.body[:80])),
                Text(view.summary or "no cited lines"),
                disposition,
                key=finding.id,
            )
        if current is not None and current in {v.finding.id for v in data.views}:
            self.move_cursor(row=self.get_row_index(current))

    @property
    def selected_id(self) -> str | None:
        """The id of the finding under the cursor."""
        if self.row_count == 0:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        return None if key.value is None else str(key.value)
