"""Edit a hunk's result by hand, in the app."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from syncdesk.services.lines import split_lines


class EditHunkScreen(ModalScreen[tuple[str, ...] | None]):
    """A text editor on the hunk's current lines; returns the new lines, or None if cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="edit.save"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]

    def __init__(self, title: str, lines: tuple[str, ...], language: str | None) -> None:
        super().__init__()
        self._title = title
        self._text = "".join(lines)
        self._language = language

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-box"):
            yield Label(self._title, id="edit-title", markup=False)
            area = TextArea(
                self._text, id="edit-area", show_line_numbers=True, tab_behavior="indent"
            )
            if self._language in area.available_languages:
                area.language = self._language
            yield area
            yield Label("ctrl+s keeps this text for the hunk · escape cancels", id="edit-help")

    def action_save(self) -> None:
        """Keep the edited text (line endings as typed; a final newline is kept if it had one)."""
        text = self.query_one(TextArea).text
        if self._text.endswith("\n") and text and not text.endswith("\n"):
            text += "\n"
        self.dismiss(tuple(split_lines(text)))

    def action_cancel(self) -> None:
        """Leave the hunk as it was."""
        self.dismiss(None)
