"""A text shown exactly as it will be posted (or copied), before anything leaves the machine."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, Static

from syncdesk.tui.text import literal


class TextPreviewScreen(Screen[bool]):
    """``summary`` above ``text``; ``p`` dismisses True (go on), escape False.

    With ``action`` None the screen only shows the text (and ``c`` copies it).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "proceed", "Post", id="preview_text.post"),
        Binding("c", "copy", "Copy", id="preview_text.copy"),
        Binding("escape", "cancel", "Back", id="preview_text.cancel"),
    ]

    def __init__(self, summary: str, text: str, *, action: str | None = "Post") -> None:
        super().__init__()
        self._summary = summary
        self._text = text
        self._action = action

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield Label(literal(self._summary), id="text-preview-summary")
        with VerticalScroll(id="text-preview-body"):
            yield Static(literal(self._text.rstrip("\n")), id="text-preview-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#text-preview-body").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without something to do, there is no "p" (Textual hides a binding whose check is False).
        return self._action is not None if action == "proceed" else True

    def action_proceed(self) -> None:
        """Go on (to the confirmation)."""
        self.dismiss(True)

    def action_copy(self) -> None:
        """Copy the text to the clipboard (through the terminal: OSC 52)."""
        self.app.copy_to_clipboard(self._text)
        self.notify("Copied to the clipboard.", markup=False)

    def action_cancel(self) -> None:
        """Leave without doing anything."""
        self.dismiss(False)
