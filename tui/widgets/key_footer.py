"""The footer of every screen: its own keys first, the keys that work everywhere pinned right."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the footer's key widget; not in textual.widgets

from syncdesk.tui.breakpoints import is_narrow
from syncdesk.tui.keys import SHORT_LABELS


class KeyFooter(Footer):
    """Textual's footer, with the app's own keys (``?``, ``q``) and ``ctrl+p`` at its right edge.

    Textual's footer lists the focused widget's keys, then the screen's, then
    the app's, and cuts the row at the terminal's edge: at 80 columns ``?``
    and ``q`` were never seen. Here every key bound on the App (as the screen's
    active bindings resolve it: a screen that rebinds ``q`` keeps it in its
    own place) sits in a group docked right beside the command palette key,
    so what is cut on a narrow terminal is the screen's least important keys,
    which ``?`` lists in full. Below the wide breakpoint the footer is
    compact (one space less around each key) and leaves ``ctrl+p`` out.

    When the screen's own keys do not fit on one row (the workspace at 80
    columns dropped ``d m u a e z``), they wrap onto a second row: a screen's
    keys stay visible, and only what does not fit on two rows is left to ``?``.
    """

    DEFAULT_CSS = """
    KeyFooter {
        #pinned-keys {
            dock: right;
            width: auto;
            height: 1;
            border-left: vkey $foreground 20%;
            background: $footer-background;
        }
        /* Footer docks the palette key right by itself; inside the group it is
           one key among the others, or the two docks would overlap. */
        #pinned-keys FooterKey.-command-palette {
            dock: none;
            border-left: none;
        }
        &.-rows {
            layout: vertical;
        }
        .key-row {
            width: 1fr;
            height: 1;
        }
    }
    """

    MAX_ROWS = 2

    def compose(self) -> ComposeResult:
        everywhere = {
            (active.binding.key, active.binding.action)
            for active in self.screen.active_bindings.values()
            if active.node is self.app
        }
        pinned: list[Widget] = []
        own: list[Widget] = []
        # Footer.compose may open containers (key groups) with `with`: what it
        # yields inside them is placed by the compose stack, so passing its
        # widgets on one by one keeps them where it meant them. No screen here
        # groups its bindings, so its keys come as FooterKeys, one by one.
        for widget in super().compose():
            if isinstance(widget, FooterKey) and (
                (widget.key, widget.action) in everywhere or widget.has_class("-command-palette")
            ):
                pinned.append(widget)
            else:
                own.append(widget)
        if self.compact:
            for widget in own:
                if isinstance(widget, FooterKey):
                    widget.description = SHORT_LABELS.get(widget.action, widget.description)
        rows = self._rows(own, pinned)
        self.set_class(len(rows) > 1, "-rows")
        self.styles.height = len(rows)
        if pinned:
            with HorizontalGroup(id="pinned-keys"):
                yield from pinned
        if len(rows) == 1:
            yield from rows[0]
            return
        for row in rows:
            with HorizontalGroup(classes="key-row"):
                yield from row

    def _rows(self, own: list[Widget], pinned: list[Widget]) -> list[list[Widget]]:
        """The screen's keys in rows that fit beside the pinned keys (at most MAX_ROWS)."""
        room = self.app.size.width - (sum(self._width(w) for w in pinned) + 1 if pinned else 0)
        rows: list[list[Widget]] = [[]]
        used = 0
        for widget in own:
            width = self._width(widget)
            if rows[-1] and used + width > room:
                if len(rows) == self.MAX_ROWS:
                    break  # the rest is in the help (?) and the palette
                rows.append([])
                used = 0
            rows[-1].append(widget)
            used += width
        return rows

    def _width(self, widget: Widget) -> int:
        """The cells a footer key takes (its key, its label, the spaces around them)."""
        if not isinstance(widget, FooterKey):
            return 0
        text = cell_len(widget.key_display) + cell_len(widget.description)
        return text + (2 if self.compact else 3)

    def on_resize(self, event: events.Resize) -> None:
        narrow = is_narrow(event.size.width)
        self.compact = narrow
        # On a narrow terminal the screen's keys need the room more than ctrl+p,
        # which the help screen names. Footer composes the palette key only when
        # it composes, and this reactive does not ask for that: recompose here,
        # as for any new width (the keys' rows are cut for a width).
        self.show_command_palette = not narrow
        self.refresh(recompose=True)
