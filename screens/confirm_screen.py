"""A yes/no question before anything is written or pushed."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from syncdesk.tui.text import literal


class ConfirmScreen(ModalScreen[bool]):
    """Asks ``question``; dismisses with True only on an explicit yes.

    The question names the branch and commits, which come from the
    repository, so it is shown as literal text, never as markup. "No" has the
    focus: Enter alone never confirms a write.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, yes: str = "Yes") -> None:
        super().__init__()
        self._question = question
        self._yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(literal(self._question), id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self._yes} (y)", id="confirm-yes", variant="warning")
                yield Button("No (n)", id="confirm-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        """Close with the answer."""
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")
