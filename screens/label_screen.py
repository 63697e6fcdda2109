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
        with Vertical(id="label-box"):
            yield Label(literal(f"Label to add or remove (now: {shown})"), id="label-title")
            yield Input(self._suggestion, id="label-input")
            yield Label("enter toggles it · escape cancels", id="label-help")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        self.dismiss(name or None)

    def action_cancel(self) -> None:
        """Change nothing."""
        self.dismiss(None)
