"""Edit a hunk's result by hand, in the app."""

from __future__ import annotations

from typing import ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.services.lines import split_lines


class HunkTextArea(TextArea):
    """A TextArea whose escape leaves the editor instead of moving the focus.

    With ``tab_behavior="indent"`` (tab indents, as a code editor should)
    Textual's TextArea takes escape for itself and moves the focus to the next
    widget; in a dialog holding nothing else that is the TextArea again, so
    escape did nothing and every later key went on typing into the hunk.
    """

    class EscapePressed(Message):
        """The user asked to leave the editor."""

    async def _on_key(self, event: events.Key) -> None:
        # Textual runs every class's _on_key along the MRO, this one first;
        # prevent_default keeps TextArea's own from running after it.
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.post_message(self.EscapePressed())


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
            area = HunkTextArea(
                self._text, id="edit-area", show_line_numbers=True, tab_behavior="indent"
            )
            if self._language in area.available_languages:
                area.language = self._language
            yield area
            yield Label(
                "ctrl+s keeps this text for the hunk · escape leaves (asks first if you typed)",
                id="edit-help",
            )

    def action_save(self) -> None:
        """Keep the edited text (line endings as typed; a final newline is kept if it had one)."""
        text = self.query_one(TextArea).text
        if self._text.endswith("\n") and text and not text.endswith("\n"):
            text += "\n"
        self.dismiss(tuple(split_lines(text)))

    def on_hunk_text_area_escape_pressed(self) -> None:
        self.action_cancel()

    @work(exclusive=True, group="edit-cancel")
    async def action_cancel(self) -> None:
        """Leave the hunk as it was; an edit is only thrown away after a yes."""
        if self.query_one(HunkTextArea).text != self._text:
            question = "Throw away your edit of this hunk? The hunk stays as it was."
            if not await self.app.push_screen_wait(ConfirmScreen(question, "Discard")):
                return
        self.dismiss(None)
