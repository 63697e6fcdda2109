"""The widths at which the screens change their layout, as Textual breakpoint classes.

Textual sets one class on a screen from ``HORIZONTAL_BREAKPOINTS``
whenever the screen is resized: the last ``(minimum width, class)`` pair the
width reaches. The App declares :data:`BREAKPOINTS`, so every screen carries
``-narrow`` or ``-wide`` and the stylesheet rearranges panes with rules such as
``Screen.-narrow #summary-pane``. A screen that needs more room for its
side-by-side layout declares its own list with the same two classes.

The class arrives with the screen's first resize, after ``on_mount``: code that
decides something once, at mount, asks :func:`is_narrow` about the app's width.
"""

from __future__ import annotations

NARROW = "-narrow"
WIDE = "-wide"

WIDE_FROM = 120  # columns: below this, panes stack or fold away


def breakpoints(wide_from: int) -> list[tuple[int, str]]:
    """``HORIZONTAL_BREAKPOINTS`` for a layout that needs ``wide_from`` columns side by side."""
    return [(0, NARROW), (wide_from, WIDE)]


BREAKPOINTS = breakpoints(WIDE_FROM)


def is_narrow(width: int) -> bool:
    """Whether a screen ``width`` columns wide gets the narrow layout."""
    return width < WIDE_FROM
