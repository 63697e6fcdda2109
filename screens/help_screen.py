"""The help screen: every key binding in effect on the screen below it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label


def where(node: object) -> str:
    """A short name for the node a binding belongs to."""
    from textual.app import App

    if isinstance(node, App):
        return "everywhere"
    if isinstance(node, Screen):
        return "this screen"
    return type(node).__name__


class HelpScreen(ModalScreen[None]):
    """Lists every binding active on ``beneath``: the app's, the screen's, the focused widget's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "close", "Close help", id="help.close"),
    ]

    def __init__(self, beneath: Screen[object]) -> None:
        super().__init__()
        self.beneath = beneath

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label("Keys", id="help-title")
            yield DataTable[Text](id="help-table", cursor_type="row", zebra_stripes=True)
            yield Label("ctrl+p opens the command palette, which lists every action too.")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_column("Key", key="key")
        table.add_column("Action", key="action")
        table.add_column("Where", key="where")
        # active_bindings walks the focus chain of the screen below: the focused
        # widget's bindings, then its ancestors', the screen's and the app's.
        for key, active in self.beneath.active_bindings.items():
            binding = active.binding
            if not binding.description:
                continue
            table.add_row(
                Text(self.app.get_key_display(binding) or key, style="bold"),
                Text(binding.description),
                Text(where(active.node), style="dim"),
            )
        table.focus()

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss()
