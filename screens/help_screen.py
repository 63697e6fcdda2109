"""The help screen: the keys of the screen below it, its own first, grouped by kind."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label

from syncdesk.tui.keys import GRAMMAR, display, kind_of
from syncdesk.tui.widgets.row_table import RowTable

# The generic keys (help, quit, the palette, Textual's own scrolling and focus
# keys, which the grammar gives no id) come last, under this one heading.
GENERIC = next(kind.name for kind in GRAMMAR if kind.generic)
ORDER = [kind.name for kind in GRAMMAR if not kind.generic] + [GENERIC]


@dataclass(frozen=True, slots=True)
class HelpRow:
    """One key of the help: its group (a kind of the grammar), the key, what it does."""

    group: str
    key: str
    action: str
    enabled: bool = True


def help_rows(active: Mapping[str, ActiveBinding]) -> list[HelpRow]:
    """The screen's own keys grouped by kind, in the grammar's order, then the generic ones.

    ``active`` is a screen's ``active_bindings``: the focused widget's bindings,
    its ancestors', the screen's and the app's, one per key.
    """
    groups: dict[str, list[HelpRow]] = {name: [] for name in ORDER}
    textual: list[HelpRow] = []  # Textual's own keys (no id of ours): the very last
    for key, found in active.items():
        binding = found.binding
        if not binding.description:
            continue
        kind = kind_of(key, binding.id)
        group = GENERIC if kind is None or kind.generic else kind.name
        row = HelpRow(
            group, binding.key_display or display(key), binding.description, found.enabled
        )
        (textual if kind is None else groups[group]).append(row)
    return [row for name in ORDER for row in groups[name]] + textual


class HelpScreen(ModalScreen[None]):
    """Every binding active on ``beneath``: the screen's own, by kind, then the generic ones."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "close", "Close help", id="help.close"),
    ]

    def __init__(self, beneath: Screen[object]) -> None:
        super().__init__()
        self.beneath = beneath
        # Read now, while ``beneath`` is still on top: a check such as the app's
        # "is there a legend here?" asks about the screen on top, which the help becomes.
        self.rows = help_rows(beneath.active_bindings)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Label("Keys", id="help-title")
            yield RowTable[Text](id="help-table", cursor_type="row", zebra_stripes=True)
            yield Label(
                "ctrl+p opens the command palette, which lists every action too; "
                "L shows the screen's symbols."
            )

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.add_column("Key", key="key")
        table.add_column("Action", key="action")
        group = ""
        for index, row in enumerate(self.rows):
            if row.group != group:
                group = row.group
                table.add_row(Text(group, style="bold underline"), Text(""), key=f"group:{group}")
            style = "" if row.enabled else "dim"
            table.add_row(
                Text(row.key, style=f"bold {style}".strip()),
                Text(row.action, style=style),
                key=f"{index}:{row.key}",
            )
        table.focus()

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss()
