"""The list of conflicted files: status, type, hunks, and badges."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType

from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.decisions.models import FileStatus
from syncdesk.tui.text import path_tail
from syncdesk.tui.widgets.row_table import RowTable

STATUS_MARKS = {
    FileStatus.UNRESOLVED: ("●", "bold red"),
    FileStatus.RESOLVED: ("◐", "yellow"),
    FileStatus.APPROVED: ("✓", "bold green"),
}


PATH_WIDTH = 28


class ConflictList(RowTable[Text]):
    """One row per conflicted file; the row key is the file's raw path."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open file", id="conflicts.open"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        for label, key, width in (
            ("", "status", 1),
            ("File", "path", PATH_WIDTH),
            ("Type", "type", 13),
            ("Hunks", "hunks", 5),
            ("", "badges", 3),
        ):
            self.add_column(label, key=key, width=width)  # fmt: skip

    def show(
        self,
        files: tuple[ConflictFile, ...],
        statuses: dict[str, FileStatus],
        badges: dict[str, str],
    ) -> None:
        """Fill the list, keeping the cursor on the same file."""
        current = self.selected_path
        self.clear()
        for conflict in files:
            mark, style = STATUS_MARKS[statuses[conflict.path]]
            path = Text(path_tail(conflict.display_path, PATH_WIDTH))
            self.add_row(
                Text(mark, style=style),
                path,
                Text(conflict.type, style="dim"),
                Text(str(len(conflict.hunks)) if conflict.hunks else "whole", justify="right"),
                Text(badges.get(conflict.path, ""), style="bold magenta"),
                key=conflict.path,
            )
        if current is not None and current in {f.path for f in files}:
            self.move_cursor(row=self.get_row_index(current))

    def update_status(self, path: str, status: FileStatus) -> None:
        """Change one file's status mark in place."""
        mark, style = STATUS_MARKS[status]
        self.update_cell(path, "status", Text(mark, style=style))

    def update_badges(self, path: str, badges: str) -> None:
        """Change one file's badges in place."""
        self.update_cell(path, "badges", Text(badges, style="bold magenta"))

    @property
    def selected_path(self) -> str | None:
        """The raw path of the file under the cursor."""
        if self.row_count == 0:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
