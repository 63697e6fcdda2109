"""Building display text from facts, safely.

Untrusted strings reach the screen only as literal text: rich ``Text`` or
Textual ``Content`` built from plain strings, never markup. The services have
already made their control characters visible; ``literal`` re-applies that for
anything that did not come through them (an exception's message, say).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from syncdesk.services.sanitize import visible


def literal(text: str, style: str = "") -> Text:
    """Rich text that shows ``text`` exactly, control characters made visible."""
    return Text(visible(text), style=style, no_wrap=False)


def counted(count: int, noun: str, plural: str = "") -> str:
    """``count`` and ``noun``, plural unless the count is one: "1 file", "3 files"."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def path_tail(path: str, width: int) -> str:
    """``path`` in at most ``width`` cells, keeping its distinguishing end.

    In a deep tree the front is the same for many files (nine rows read
    ``megatron/core/transformer/m…``): the end is what tells them apart, so
    the front goes, at a directory boundary when the file name stays whole:
    ``…/moe/token_dispatcher.py``.
    """
    if cell_len(path) <= width:
        return path
    if width <= 1:
        return "…"[:width]
    tail = path
    while tail and cell_len(tail) > width - 1:
        tail = tail[1:]
    slash = tail.find("/")
    if 0 <= slash < len(tail) - 1:
        tail = tail[slash:]
    return "…" + tail
