"""A text shown exactly as it will be posted (or copied), before anything leaves the machine."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Label, Static

from syncdesk.tui.text import literal
from syncdesk.tui.widgets.key_footer import KeyFooter


def clipboard_message(headless: bool, environ: Mapping[str, str]) -> str:
    """What copying through the terminal did, as far as syncdesk can know it.

    Textual's ``copy_to_clipboard`` writes the clipboard sequence (OSC 52) to
    the terminal; no terminal answers it, so whether the text arrived is the
    terminal's secret. Say what was done, and where it is known not to arrive.
    """
    if headless:
        return "Nothing was copied: there is no terminal to hand the text to."
    if environ.get("TERM_PROGRAM") == "Apple_Terminal":
        return (
            "Nothing was copied: macOS Terminal ignores the clipboard sequence (OSC 52). "
            "Select the text with the mouse instead."
        )
    sent = "Sent the text to the terminal's clipboard (OSC 52)"
    if environ.get("TMUX"):
        return (
            f"{sent} through tmux: it reaches the clipboard only if tmux passes it on "
            "(set -g set-clipboard on). If pasting gives nothing, select the text instead."
        )
    return (
        f"{sent}. Most terminals accept it; if pasting gives nothing, yours does not "
        "(select the text with the mouse instead)."
    )


class TextPreviewScreen(Screen[bool]):
    """``summary`` above ``text``; ``P`` dismisses True (go on), escape False.

    With ``action`` None the screen only shows the text (and ``C`` copies it).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("P", "proceed", "Post", id="preview_text.post"),
        Binding("C", "copy", "Copy", id="preview_text.copy"),
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
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#text-preview-body").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without something to do, there is no "P" (Textual hides a binding whose check is False).
        return self._action is not None if action == "proceed" else True

    def action_proceed(self) -> None:
        """Go on (to the confirmation)."""
        self.dismiss(True)

    def action_copy(self) -> None:
        """Copy the text to the clipboard (through the terminal: OSC 52), and say what happened."""
        self.app.copy_to_clipboard(self._text)
        message = clipboard_message(self.app.is_headless, os.environ)
        self.notify(message, title="Clipboard", markup=False, timeout=12)

    def action_cancel(self) -> None:
        """Leave without doing anything."""
        self.dismiss(False)
