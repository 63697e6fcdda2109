"""The side-by-side 3-way view: dev | result | main, scrolled as one.

One Line API widget draws all three panes, so they can never scroll apart:
each row of the view is one aligned row of the three files (a common line,
or one line of a hunk padded to the height of its tallest side). Only the
visible rows are rendered, and highlighted lines are cached, so a 25,000-line
file opens and scrolls as fast as a small one.

Within a hunk, the words a line changed are marked against its version on the
other side, which need not be on the same row (the pairing and the word diff
are :mod:`syncdesk.services.conflicts.worddiff`'s, worked out per hunk when it
is first drawn); moving to a hunk shifts the text sideways to its first change.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, overload

from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Span, Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from syncdesk.services.conflicts.models import Common, ConflictFile, Hunk
from syncdesk.services.conflicts.worddiff import (
    Columns,
    Pairing,
    changed_words,
    first_change,
    pair_lines,
)
from syncdesk.services.sanitize import visible
from syncdesk.services.workspace.layout import commons
from syncdesk.services.workspace.whole_file import absent_sides

GUTTER = 6  # "12345 "
SEPARATOR = "│"


@dataclass(frozen=True, slots=True)
class Cell:
    """One pane's line in a row: its text (raw) and line number, or a filler."""

    text: str | None = None
    number: int | None = None


FILLER = Cell()


@dataclass(frozen=True, slots=True)
class Row:
    """One aligned row: the dev, result and main cells, and the hunk it belongs to."""

    dev: Cell
    result: Cell
    main: Cell
    base: Cell
    hunk: int | None = None

    def cell(self, side: str) -> Cell:
        """The cell of pane ``side``: dev, base, result or main."""
        return {"dev": self.dev, "base": self.base, "result": self.result, "main": self.main}[side]


def display_text(line: str) -> str:
    """A raw file line made safe and flat for the screen.

    The line ending goes; invalid UTF-8 (lone surrogates from surrogateescape)
    becomes U+FFFD, which a terminal can print; control characters become
    visible; tabs become spaces so that columns stay aligned.
    """
    text = line.rstrip("\n").rstrip("\r")
    return visible(text).expandtabs(4)


@dataclass(frozen=True, slots=True)
class Block:
    """A run of rows drawn from one segment: a common run, or a hunk padded to its tallest side."""

    first_row: int
    height: int
    segment: Common | Hunk
    result: tuple[str, ...]  # the hunk's current lines (a common run's own lines)
    result_no: int  # the result's line number at the block's first row


class Alignment(Sequence[Row]):
    """The rows of a conflicted file, computed on demand.

    Opening a 25,000-line file builds one :class:`Block` per segment, not one
    object per row: a row is made only when it is drawn.
    """

    def __init__(
        self,
        conflict: ConflictFile,
        results: list[tuple[str, ...]],
        gaps: list[tuple[str, ...]] | None = None,
    ) -> None:
        self.blocks: list[Block] = []
        self.hunk_starts: list[int] = []
        runs = commons(conflict)
        # The result pane shows the result's own lines between hunks (``gaps``: the
        # head's, with the repair's changes) beside the merged text of the others.
        between = gaps if gaps is not None else runs
        hunks = conflict.hunks
        row, result_no = 0, 1
        for k, (run, gap) in enumerate(zip(runs, between, strict=True)):
            height = max(len(run), len(gap))
            if height:
                self.blocks.append(Block(row, height, Common(run), gap, result_no))
                row, result_no = row + height, result_no + len(gap)
            if k < len(hunks):
                hunk, lines = hunks[k], results[k]
                height = max(len(hunk.dev), len(lines), len(hunk.main), len(hunk.base), 1)
                self.hunk_starts.append(row)
                self.blocks.append(Block(row, height, hunk, lines, result_no))
                row, result_no = row + height, result_no + len(lines)
        self._firsts = [block.first_row for block in self.blocks]
        self._length = row
        self._comparisons: dict[int, Comparison] = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Row: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Row]: ...

    def __getitem__(self, index: int | slice) -> Row | Sequence[Row]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if not 0 <= index < self._length:
            raise IndexError(index)
        block = self.blocks[bisect.bisect_right(self._firsts, index) - 1]
        offset = index - block.first_row
        segment = block.segment
        if isinstance(segment, Common):
            merged = _cell(segment.lines, 0, offset)
            side = Cell(merged.text) if merged.text is not None else FILLER
            return Row(side, _cell(block.result, block.result_no, offset), side, side)
        return Row(
            _cell(segment.dev, segment.dev_start, offset),
            _cell(block.result, block.result_no, offset),
            _cell(segment.main, segment.main_start, offset),
            _cell(segment.base, segment.base_start, offset),
            segment.index,
        )

    def counterpart(self, hunk: int, offset: int, pane: str) -> str | None:
        """The line that ``pane``'s line ``offset`` of hunk ``hunk`` is compared with.

        Dev's line is compared with main's version of it, main's and the
        result's with dev's: the version :func:`pair_lines` finds, wherever it
        sits in the hunk. None for a line with no differing version there.
        """
        compared = self._compared(hunk, pane)
        if compared is None:
            return None
        _, others, pairing = compared
        found = pairing.counterparts.get(offset)
        return None if found is None else others[found]

    def first_change(self, hunk: int, rows: int) -> Columns | None:
        """The leftmost change on the first ``rows`` rows of hunk ``hunk``, in screen columns."""
        found: Columns | None = None
        for pane in ("dev", "main", "result"):
            compared = self._compared(hunk, pane)
            if compared is None:
                continue
            lines, others, pairing = compared
            # changed_spans (cached): drawing the rows just after compares the same pairs.
            change = first_change(
                lines, others, pairing, rows, shown=display_text, compare=changed_spans
            )
            if change is not None and (found is None or change[0] < found[0]):
                found = change
        return found

    def _compared(
        self, hunk: int, pane: str
    ) -> tuple[tuple[str, ...], tuple[str, ...], Pairing] | None:
        """``pane``'s lines in the hunk, the lines they are compared with, and how they pair."""
        if pane not in ("dev", "main", "result") or not 0 <= hunk < len(self.hunk_starts):
            return None
        block = self.blocks[bisect.bisect_right(self._firsts, self.hunk_starts[hunk]) - 1]
        segment = block.segment
        assert isinstance(segment, Hunk)
        compared = self._comparisons.get(hunk)
        if compared is None:  # worked out when the hunk is first drawn, then kept
            dev, main = pair_lines(segment.dev, segment.main)
            result, _ = pair_lines(block.result, segment.dev)
            compared = self._comparisons[hunk] = Comparison(dev, main, result)
        if pane == "dev":
            return segment.dev, segment.main, compared.dev
        if pane == "main":
            return segment.main, segment.dev, compared.main
        return block.result, segment.dev, compared.result


@dataclass(frozen=True, slots=True)
class Comparison:
    """How one hunk's lines pair: dev's with main's, main's and the result's with dev's."""

    dev: Pairing
    main: Pairing
    result: Pairing


def _cell(lines: tuple[str, ...], start: int, offset: int) -> Cell:
    return Cell(lines[offset], start + offset) if offset < len(lines) else FILLER


def _foreground(style: Style | str) -> Style:
    """A syntax theme's style without its background, which belongs to the hunk colours."""
    parsed = Style.parse(style) if isinstance(style, str) else style
    return Style(color=parsed.color, bold=parsed.bold, italic=parsed.italic)


@lru_cache(maxsize=8192)
def changed_spans(text: str, other: str) -> tuple[Columns, ...]:
    """The character ranges of ``text`` holding words ``other`` does not have (cached)."""
    return changed_words(text, other)


PANE_NAMES = {
    "dev": "dev (parent 1)",
    "base": "base",
    "result": "result",
    "main": "main (slice tip)",
}


def pane_title(side: str, absent: Sequence[str]) -> str:
    """A pane's name, and whether its side has no file: it deleted it, or (base) both added it."""
    name = PANE_NAMES[side]
    if side not in absent:
        return name
    if side == "base":
        return f"{name} · none: both added"
    return f"{name} · no file" if "base" in absent else f"{name} · deleted"


SHIFT_STEP = 8  # a sideways shift to a change is a multiple of this, so ← steps back to 0


def offset_showing(change: Columns | None, width: int) -> int:
    """The text offset that shows ``change`` in panes ``width`` columns wide.

    0 while the change (its first few columns) shows from the left; else the
    change starts a few columns into the pane.
    """
    if change is None:
        return 0
    start, end = change
    if min(end, start + SHIFT_STEP) <= width:
        return 0
    return max(0, (start - SHIFT_STEP) // SHIFT_STEP * SHIFT_STEP)


class ThreeWayView(ScrollView, can_focus=True):
    """dev | result | main, aligned hunk by hunk, the current hunk marked."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "threeway--gutter",
        "threeway--separator",
        "threeway--filler",
        "threeway--hunk",
        "threeway--current",
        "threeway--result-hunk",
        "threeway--change",
    }

    DEFAULT_CSS = """
    ThreeWayView {
        background: $surface;
        & > .threeway--gutter { color: $text-muted; }
        & > .threeway--separator { color: $foreground 30%; }
        & > .threeway--filler { color: $foreground 15%; }
        & > .threeway--hunk { background: $warning 12%; }
        & > .threeway--current { background: $warning 30%; }
        & > .threeway--result-hunk { background: $success 15%; }
        & > .threeway--change { background: $error 35%; text-style: bold; }
    }
    """

    current_hunk: reactive[int] = reactive(0)
    show_base: reactive[bool] = reactive(False)
    zoom: reactive[str | None] = reactive(None)  # the one side across the whole view, or None
    text_offset: reactive[int] = reactive(0)  # columns scrolled right, in every pane at once

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l", "shift(8)", "Scroll right", show=False, id="view.right"),
        Binding("left,h", "shift(-8)", "Scroll left", show=False, id="view.left"),
    ]

    class Resized(Message):
        """The view changed size: pane titles above it must follow."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: Sequence[Row] = []
        self._styles: dict[str, Style] = {}
        self.hunk_starts: list[int] = []
        self._syntax: Syntax | None = None
        self._absent: tuple[str, ...] = ()  # the sides with no file: their titles say so

    def show(
        self,
        conflict: ConflictFile,
        results: list[tuple[str, ...]],
        gaps: list[tuple[str, ...]] | None = None,
    ) -> None:
        """Display ``conflict`` with the given per-hunk results (and the result's lines between)."""
        self.rows = Alignment(conflict, results, gaps)
        self.hunk_starts = self.rows.hunk_starts
        if absent_sides(conflict) != self._absent:
            self._absent = absent_sides(conflict)
            self.post_message(self.Resized())  # the titles above say which side has no file
        name = Syntax.guess_lexer(conflict.path, "")
        # One Syntax, holding one lexer object, per file: looking a lexer up by
        # name (what Syntax does for a str) costs more than lexing a line.
        lexer = None if name == "default" else Syntax("", name).lexer
        self._syntax = (
            None
            if lexer is None
            else Syntax("", lexer, theme="monokai", background_color="default")
        )
        self.virtual_size = Size(self.size.width, len(self.rows))
        self._highlight.cache_clear()
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())

    def watch_current_hunk(self) -> None:
        self.refresh()

    def action_shift(self, columns: int) -> None:
        """Scroll every pane's text sideways together."""
        self.text_offset = max(0, self.text_offset + columns)

    def watch_text_offset(self) -> None:
        self.refresh()

    def watch_show_base(self) -> None:
        self.refresh()
        self.post_message(self.Resized())

    def watch_zoom(self) -> None:
        self.refresh()
        self.post_message(self.Resized())
        # The panes changed width: the sideways shift that showed the hunk's
        # first change in a third of the view is wrong for all of it, and back.
        self._shift_to_change()

    def panes(self) -> tuple[str, ...]:
        """The sides drawn, left to right: the zoomed one, or all (base beside dev when shown)."""
        if self.zoom is not None:
            return (self.zoom,)
        return ("dev", "base", "result", "main") if self.show_base else ("dev", "result", "main")

    def scroll_to_hunk(self, index: int) -> None:
        """Make hunk ``index`` current and bring it into view, a few lines below the top."""
        if not self.hunk_starts:
            return
        self.current_hunk = max(0, min(index, len(self.hunk_starts) - 1))
        target = max(0, self.hunk_starts[self.current_hunk] - 3)
        # After show() the new virtual size reaches the scrollbars only with the
        # next layout: scroll then, or the target is clamped to the old height.
        self.call_after_refresh(self.scroll_to, y=target, animate=False)
        self._shift_to_change()

    def _shift_to_change(self) -> None:
        """Scroll sideways to the current hunk's first change, or back to 0 if it shows."""
        if not isinstance(self.rows, Alignment) or not self.size.width:
            return
        rows = max(1, self.size.height - 3)  # the hunk's rows in view (it starts 3 down)
        change = self.rows.first_change(self.current_hunk, rows)
        self.text_offset = offset_showing(change, self.pane_width() - GUTTER)

    @lru_cache(maxsize=4096)  # noqa: B019 (one view per screen; cleared on every show)
    def _highlight(self, text: str) -> Text:
        if self._syntax is None:
            return Text(text)
        highlighted = self._syntax.highlight(text)
        highlighted.rstrip()
        highlighted.spans = [
            Span(span.start, span.end, _foreground(span.style)) for span in highlighted.spans
        ]
        highlighted.style = ""
        return highlighted

    @property
    def pane_count(self) -> int:
        return len(self.panes())

    def notify_style_update(self) -> None:
        # Resolving a component style walks the CSS: done once per theme or CSS
        # change, not once per cell (DataTable caches the same way).
        self._styles.clear()
        super().notify_style_update()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self.rich_style if name == "base" else self.get_component_rich_style(name)
            self._styles[name] = style
        return style

    def pane_width(self) -> int:
        """How many cells each pane gets."""
        count = self.pane_count
        return max(8, (self.size.width - (count - 1)) // count)

    def titles(self) -> str:
        """The panes' names centred over them, for a title line above the view."""
        width = self.pane_width()
        names = [pane_title(side, self._absent) for side in self.panes()]
        if self.zoom is not None:
            names = [f"{names[0]} · zoomed, Z shows the next"]
        return SEPARATOR.join(name.center(width)[:width] for name in names)

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.size.width
        if index >= len(self.rows) or width <= 0:
            return Strip.blank(width, self._style("base"))
        row = self.rows[index]
        pane = self.pane_width()
        separator = self._style("threeway--separator")
        segments: list[Segment] = []
        for position, side in enumerate(self.panes()):
            if position:
                segments.append(Segment(SEPARATOR, separator))
            other = self._counterpart(row, index, side)
            segments.extend(self._cell(row.cell(side), row, side == "result", pane, other))
        return Strip(segments).crop_extend(0, width, self._style("base"))

    def _counterpart(self, row: Row, index: int, side: str) -> Cell | None:
        """The line the line in pane ``side`` of row ``index`` is compared with, if any."""
        if row.hunk is None or not isinstance(self.rows, Alignment):
            return None
        offset = index - self.hunk_starts[row.hunk]
        text = self.rows.counterpart(row.hunk, offset, side)
        return None if text is None else Cell(text)

    def _cell(
        self, cell: Cell, row: Row, is_result: bool, width: int, other: Cell | None
    ) -> list[Segment]:
        base = self._style("base")
        if row.hunk is not None:
            name = "threeway--current" if row.hunk == self.current_hunk else "threeway--hunk"
            if is_result and row.hunk != self.current_hunk:
                name = "threeway--result-hunk"
            base = base + self._style(name)
        if cell.text is None:
            filler = self._style("threeway--filler")
            return [Segment(("╱" * width), base + filler)]
        gutter_style = base + self._style("threeway--gutter")
        number = f"{cell.number:>{GUTTER - 1}} " if cell.number is not None else " " * GUTTER
        shown = display_text(cell.text)
        text = self._highlight(shown).copy()
        if other is not None and other.text is not None and row.hunk is not None:
            # Within a hunk, what differs from the other side's line stands out.
            change = self._style("threeway--change")
            for start, end in changed_spans(shown, display_text(other.text)):
                text.stylize(change, start, end)
        if self.text_offset:
            text = text[self.text_offset :]
        text.truncate(width - GUTTER, pad=True)
        body = [
            Segment(segment.text, base + segment.style if segment.style else base)
            for segment in text.render(self.app.console)
            if segment.text != "\n"
        ]
        return [Segment(number, gutter_style), *Strip(body).crop_extend(0, width - GUTTER, base)]
