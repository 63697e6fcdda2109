"""Write the note that goes with a finding's disposition."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from syncdesk.tui.text import literal


class NoteScreen(ModalScreen[str | None]):
    """A small editor; dismisses with the note, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="note.save"),
        Binding("escape", "cancel", "Cancel", id="note.cancel"),
    ]

    def __init__(self, title: str, note: str) -> None:
        super().__init__()
        self._title = title
        self._note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            yield Label(literal(self._title), id="note-title")
            yield TextArea(self._note, id="note-area", soft_wrap=True)
            yield Label("ctrl+s saves the note · escape cancels", id="note-help")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        """Keep the note (surrounding blank lines dropped)."""
        self.dismiss(self.query_one(TextArea).text.strip())

    def action_cancel(self) -> None:
        """Leave the note as it was."""
        self.dismiss(None)
