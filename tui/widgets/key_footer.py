"""The footer of every screen: its own keys first, the keys that work everywhere pinned right."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the footer's key widget; not in textual.widgets

from syncdesk.tui.breakpoints import is_narrow


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
    }
    """

    def compose(self) -> ComposeResult:
        everywhere = {
            (active.binding.key, active.binding.action)
            for active in self.screen.active_bindings.values()
            if active.node is self.app
        }
        pinned: list[Widget] = []
        # Footer.compose may open containers (key groups) with `with`: what it
        # yields inside them is placed by the compose stack, so passing its
        # widgets on one by one keeps them where it meant them.
        for widget in super().compose():
            if isinstance(widget, FooterKey) and (
                (widget.key, widget.action) in everywhere or widget.has_class("-command-palette")
            ):
                pinned.append(widget)
            else:
                yield widget
        if pinned:
            with HorizontalGroup(id="pinned-keys"):
                yield from pinned

    def on_resize(self, event: events.Resize) -> None:
        narrow = is_narrow(event.size.width)
        self.compact = narrow
        # On a narrow terminal the screen's keys need the room more than ctrl+p,
        # which the help screen names. Footer composes the palette key only when
        # it composes, and this reactive does not ask for that: recompose here.
        if self.show_command_palette == narrow:
            self.show_command_palette = not narrow
            self.refresh(recompose=True)
