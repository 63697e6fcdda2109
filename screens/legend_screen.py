"""The legend: what each symbol on the screen below means (``L`` opens and closes it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from syncdesk.tui.legend import Symbol

_LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")  # a README link: its text is enough here


def _link_text(link: re.Match[str]) -> str:
    return link.group(1)


def legend_text(symbols: Sequence[Symbol]) -> Text:
    """One entry a symbol: its marks and where they are, then what each means."""
    text = Text()
    for symbol in symbols:
        text.append(" / ".join(symbol.marks), "bold")
        text.append(f"   {symbol.where}\n", "dim")
        text.append(f"{_LINK.sub(_link_text, symbol.means)}\n\n")
    text.rstrip()
    return text


class LegendScreen(ModalScreen[None]):
    """The symbols of one screen; ``L`` again (or escape) closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,L", "close", "Close legend", id="legend.close"),
    ]

    def __init__(self, symbols: Sequence[Symbol]) -> None:
        super().__init__()
        self.symbols = tuple(symbols)

    def compose(self) -> ComposeResult:
        with Vertical(id="legend-box"):
            yield Label("Symbols on this screen", id="legend-title")
            with VerticalScroll(id="legend-body"):
                yield Static(legend_text(self.symbols), id="legend-text")
            yield Label("L or escape closes the legend.")

    def on_mount(self) -> None:
        # The body scrolls when the legend is taller than the terminal: give it the
        # keys (up, down, page up and down) by focusing it.
        self.query_one("#legend-body").focus()

    def action_close(self) -> None:
        """Close the legend."""
        self.dismiss()
