"""Ask which label to add or remove."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from syncdesk.tui.text import literal


class LabelScreen(ModalScreen[str | None]):
    """An input for a label's name; dismisses with it (stripped), or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="label.cancel"),
    ]

    def __init__(self, current: tuple[str, ...], suggestion: str = "") -> None:
        super().__init__()
        self._current = current
        self._suggestion = suggestion

    def compose(self) -> ComposeResult:
        shown = ", ".join(self._current) if self._current else "none"
        # Not pre-filled: with the suggestion already on the pull request, a
        # pre-filled Enter removed it. The suggestion is a placeholder, and the
        # line below says what Enter will do with what was typed.
        placeholder = f"e.g. {self._suggestion}" if self._suggestion else "a label's name"
        with Vertical(id="label-box"):
            yield Label(literal(f"Label to add or remove (now: {shown})"), id="label-title")
            yield Input(placeholder=placeholder, id="label-input")
            yield Label(literal(self._help("")), id="label-help")

    def _help(self, typed: str) -> str:
        name = typed.strip()
        if not name:
            return "type a label's name · escape cancels"
        verb = "removes" if name in self._current else "adds"
        return f"enter {verb} {name!r} · escape cancels"

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self.query_one("#label-help", Label).update(literal(self._help(event.value)))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if name:  # Enter on nothing typed does nothing; escape cancels
            self.dismiss(name)

    def action_cancel(self) -> None:
        """Change nothing."""
        self.dismiss(None)
