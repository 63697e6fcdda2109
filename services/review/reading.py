"""A review text read as markdown: the plain lines the finding grammar reads, and its blocks.

Reviewers write findings in GitHub markdown: headings, bold, lists, tables, quotes
and ``<details><summary>`` blocks. :func:`read_markdown` tokenizes the text with
markdown-it-py (CommonMark, with GitHub's tables and strikethrough, raw HTML kept)
and gives, for every source line outside code, its *plain* text: emphasis markers,
HTML tags, backticks and link targets removed, entities decoded, so ``**F1 (CRITICAL)
— Title**`` and ``<summary>R07 — Title</summary>`` read like ``F1 (CRITICAL) — Title``
and ``R07 — Title``. Fenced and indented code give no line at all: nothing in code is
read as a finding or a status hint.

Besides the lines, it keeps what the grammar needs whole: list items and the line that
announces their list ("Two non-blocking follow-ups:"), table rows with their header,
heading levels, ``</details>`` and thematic breaks.

markdown-it-py is linear but pure Python (about a second for 200 KB of hostile text).
GitHub caps a review body at 65,536 characters, so only the first :data:`MAX_MARKDOWN`
characters of a longer text are read for structure; the rest still belongs to the last
finding's body, and its links are still read.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from markdown_it import MarkdownIt
from markdown_it.token import Token

MAX_MARKDOWN = 131_072  # twice GitHub's limit on a review body

_HTML_TAG = re.compile(r"<[^<>\n]{0,2000}>")  # bounded: each '<' is looked at once
_BREAK_TAG = re.compile(r"(?i:<br\s*/?>)")
# An image's alternative text is what it says: a badge <img alt="P2"> reads "P2".
_IMAGE_ALT = re.compile(
    r"""(?i:<img\b[^<>\n]{0,2000}?\balt[ \t]*=[ \t]*(?:"([^"<>\n]{0,200})"|'([^'<>\n]{0,200})'))"""
)
_BLOCK_OPENS = ("_open", "fence", "code_block", "html_block", "hr")


class Role(StrEnum):
    """What a line of a review is in its markdown."""

    TEXT = "text"  # a line of a paragraph, a list item or a quote
    HEADING = "heading"
    SUMMARY = "summary"  # a line of an HTML block holding <summary>
    DETAILS_END = "details-end"  # the "</details>" that closes a collapsed block
    RULE = "rule"  # a thematic break
    ROW = "row"  # a table row, its cells joined by " | " (read by the table rules only)


@dataclass(frozen=True, slots=True)
class Line:
    """One source line as the grammar reads it.

    ``start``/``end`` are offsets into the text (the line without its newline).
    ``lead`` is how many characters of ``plain`` a bold or italic span at the start
    of the line covers (0 when it does not start with one): ``**F2: Keyword order**
    (important)`` has a lead of 17, the title ends there.
    """

    start: int
    end: int
    plain: str
    role: Role = Role.TEXT
    first: bool = False  # the first line of its block
    heading: int = 0  # the heading's level, 1-6
    item: int = -1  # the list item this line opens (an index into Reading.items)
    lead: int = 0
    links: tuple[str, ...] = ()  # link targets written on the line
    struck: bool = False  # it opens with a struck-through span (~~...~~): withdrawn or done


@dataclass(frozen=True, slots=True)
class ListItem:
    """A list item: its extent, and the line that announced its list ("" when none)."""

    start: int
    end: int
    lead_in: str


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table row: its extent and its cells' plain text."""

    start: int
    end: int
    cells: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Table:
    """A table: the header's cells and the body's rows."""

    header: tuple[str, ...]
    rows: tuple[TableRow, ...]


@dataclass(frozen=True, slots=True)
class Reading:
    """A text read as markdown: its lines outside code, in order, its list items and tables.

    ``extent`` is how much of the text was read (all of it, but for a text longer than
    :data:`MAX_MARKDOWN`).
    """

    lines: tuple[Line, ...]
    items: tuple[ListItem, ...] = ()
    tables: tuple[Table, ...] = ()
    extent: int = 0


# CommonMark's "normalize" step turns NUL into U+FFFD; the text must reach the
# screen as written (a NUL shown as ^@), and its line ends are already "\n".
_MARKDOWN = (
    MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).disable("normalize")
)


def read_markdown(text: str) -> Reading:
    """The plain lines, list items and tables of ``text`` (line ends already ``\\n``).

    Never raises: should the tokenizer fail, every line is read as written.
    """
    head = text[:MAX_MARKDOWN]
    if len(text) > MAX_MARKDOWN and "\n" in head:
        head = head[: head.rindex("\n")]
    try:
        tokens = _MARKDOWN.parse(head)
    except Exception:  # a tokenizer bug must not cost the review: read it line by line
        return _as_written(head)
    return _Reader(head).read(tokens)


def _as_written(text: str) -> Reading:
    lines, offset = [], 0
    for raw in text.split("\n"):
        lines.append(Line(offset, offset + len(raw), raw.strip(), first=True))
        offset += len(raw) + 1
    return Reading(tuple(lines), extent=len(text))


@dataclass(slots=True)
class _Reader:
    """One walk over the token stream of a text."""

    text: str
    starts: list[int] = field(default_factory=list)  # offset of each source line
    lines: list[Line] = field(default_factory=list)
    items: list[ListItem] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    pending_item: int = -1  # the item whose first line is still to come
    preceding: tuple[int, str] | None = None  # (level, last line) of the block just closed
    lead_ins: list[str] = field(default_factory=list)  # what announced each open list

    def read(self, tokens: Sequence[Token]) -> Reading:
        self.starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        index = 0
        while index < len(tokens):
            index = self._token(tokens, index)
        return Reading(tuple(self.lines), tuple(self.items), tuple(self.tables), len(self.text))

    def _span(self, first: int, last: int) -> tuple[int, int]:
        """Offsets of source lines ``first`` to ``last`` (inclusive), clamped to the text."""
        first = min(max(first, 0), len(self.starts) - 1)
        last = min(max(last, first), len(self.starts) - 1)
        end = self.starts[last + 1] - 1 if last + 1 < len(self.starts) else len(self.text)
        return self.starts[first], end

    def _token(self, tokens: Sequence[Token], index: int) -> int:
        token = tokens[index]
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            self.lead_ins.append(self._take_lead_in(token.level))
            return index + 1
        if kind in ("bullet_list_close", "ordered_list_close") and self.lead_ins:
            self.lead_ins.pop()
        if kind.endswith(_BLOCK_OPENS) and kind not in ("paragraph_open", "heading_open"):
            self.preceding = None
        if kind == "list_item_open" and token.map:
            start, end = self._span(token.map[0], token.map[1] - 1)
            self.items.append(ListItem(start, end, self.lead_ins[-1] if self.lead_ins else ""))
            self.pending_item = len(self.items) - 1
        elif kind == "list_item_close":
            self.pending_item = -1
        elif kind == "hr" and token.map:
            start, end = self._span(token.map[0], token.map[0])
            self._add(Line(start, end, "", Role.RULE, first=True))
        elif kind == "html_block" and token.map:
            self._html(token)
        elif kind in ("paragraph_open", "heading_open") and index + 1 < len(tokens):
            self._inline(token, tokens[index + 1])
            return index + 2
        elif kind == "table_open":
            return self._table(tokens, index)
        return index + 1

    def _take_lead_in(self, level: int) -> str:
        preceding, self.preceding = self.preceding, None
        return preceding[1] if preceding is not None and preceding[0] == level else ""

    def _add(self, line: Line) -> None:
        if self.pending_item >= 0 and line.role in (Role.TEXT, Role.HEADING, Role.SUMMARY):
            line = replace(line, item=self.pending_item)
            self.pending_item = -1
        self.lines.append(line)

    def _inline(self, block: Token, inline: Token) -> None:
        """The lines of a paragraph or heading."""
        heading = int(block.tag[1:]) if block.type == "heading_open" else 0
        role = Role.HEADING if heading else Role.TEXT
        first_line = (inline.map or block.map or [0, 1])[0]
        last_line = (inline.map or block.map or [0, 1])[1] - 1
        plain_lines = _plain_lines(inline.children or [])
        source = first_line
        for number, (plain, lead, links, struck, spans) in enumerate(plain_lines):
            start, end = self._span(min(source, last_line), source + spans - 1)
            line = Line(start, end, plain, role, number == 0, heading, -1, lead, links, struck)
            self._add(line)
            source += spans
        if plain_lines:
            self.preceding = (block.level, plain_lines[-1][0])

    def _html(self, token: Token) -> None:
        """The lines of a raw HTML block, tags removed: ``<summary>`` lines and ``</details>``."""
        assert token.map is not None
        for number, raw in enumerate(token.content.split("\n")):
            if not raw.strip():
                continue
            start, end = self._span(token.map[0] + number, token.map[0] + number)
            lowered = raw.lower()
            closing = lowered.find("</details")
            summary = lowered.find("<summary")
            plain = html.unescape(_HTML_TAG.sub("", _BREAK_TAG.sub(" ", _with_alt(raw)))).strip()
            if 0 <= closing < summary or (closing >= 0 and summary < 0):
                self._add(Line(start, end, "", Role.DETAILS_END))
            if plain:
                role = Role.SUMMARY if summary >= 0 else Role.TEXT
                self._add(Line(start, end, plain, role, first=number == 0))
            if closing > summary >= 0:
                self._add(Line(start, end, "", Role.DETAILS_END))

    def _table(self, tokens: Sequence[Token], index: int) -> int:
        """Read a table up to its close: its header cells and rows (each also one ROW line)."""
        header: tuple[str, ...] = ()
        rows: list[TableRow] = []
        cells: list[str] = []
        row_map: list[int] | None = None
        in_head = False
        while index < len(tokens) and tokens[index].type != "table_close":
            token = tokens[index]
            if token.type in ("thead_open", "thead_close"):
                in_head = token.type == "thead_open"
            elif token.type == "tr_open":
                cells, row_map = [], token.map
            elif token.type == "inline":
                cells.append(" ".join(plain[0] for plain in _plain_lines(token.children or [])))
            elif token.type == "tr_close":
                if in_head:
                    header = tuple(cells)
                elif row_map:
                    start, end = self._span(row_map[0], row_map[0])
                    rows.append(TableRow(start, end, tuple(cells)))
                    self._add(Line(start, end, " | ".join(cells), Role.ROW, first=True))
            index += 1
        self.tables.append(Table(header, tuple(rows)))
        return index + 1


@dataclass(slots=True)
class _PlainLine:
    """One line of an inline run as it is read: its text, link targets and leading bold span."""

    parts: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    lead: int = 0
    depth: int = 0  # emphasis spans open since the start of the line
    leading: bool = True  # nothing read yet but the text of a leading emphasis span
    struck: bool = False  # a strike-through span opened before any text
    spans: int = 1  # how many source lines it is read from (a bold title may wrap)

    def text(self) -> str:
        return "".join(self.parts).strip()

    def add(self, text: str) -> None:
        self.parts.append(text)
        if self.depth == 0 and text.strip():
            self.leading = False

    def emphasis(self, opens: bool) -> None:
        """A bold or italic span opens or closes: the line's lead is where the first one closes."""
        if opens and self.leading and not self.text():
            self.depth += 1
        elif not opens and self.leading and self.depth:
            self.depth -= 1
            if self.depth == 0:
                self.lead, self.leading = len(self.text()), False

    def done(self) -> _Plain:
        lead = self.lead if self.depth == 0 else 0
        return self.text(), lead, tuple(self.links), self.struck, self.spans


# A line's plain text, its lead, its link targets, whether it opens struck through, and how
# many source lines it is read from.
_Plain = tuple[str, int, tuple[str, ...], bool, int]


def _plain_lines(children: Sequence[Token]) -> list[_Plain]:
    """The plain text of an inline run, line by line: (text, lead, link targets, struck)."""
    lines: list[_Plain] = []
    line = _PlainLine()
    autolink = ""  # the address of the autolink being read
    for child in children:
        kind = child.type
        if kind == "softbreak" and line.leading and line.depth:
            # A bold title wrapped over the source's line break ("**[P1] The close() no
            # longer waits for\nin-flight batches**"): one line, as GitHub shows it.
            line.add(" ")
            line.spans += 1
        elif kind in ("softbreak", "hardbreak"):
            lines.append(line.done())
            line = _PlainLine()
        elif kind in ("strong_open", "em_open", "strong_close", "em_close"):
            if "_" in child.markup:  # "__init__" is a name in a review, not bold "init"
                line.add(child.markup)
                line.leading = False
            else:
                line.emphasis(kind.endswith("_open"))
        elif kind == "s_open" and not line.text():
            line.struck = True
        elif kind == "link_open" and isinstance(child.attrs.get("href"), str):
            href = str(child.attrs["href"])
            line.links.append(href)
            autolink = href if child.markup == "autolink" else ""
        elif kind == "link_close":
            autolink = ""
        elif kind in ("text", "code_inline", "image"):
            # "<https://...>": the address as written, not decoded
            line.add(autolink if autolink and kind == "text" else child.content)
        elif kind == "html_inline" and _BREAK_TAG.fullmatch(child.content.strip()):
            line.add(" ")
        elif kind == "html_inline" and (alt := _IMAGE_ALT.match(child.content.strip())):
            line.add(alt.group(1) or alt.group(2) or "")
    lines.append(line.done())
    return lines


def _with_alt(raw: str) -> str:
    """``raw`` HTML with each image's alternative text standing before its tag."""
    if "<img" not in raw.lower():
        return raw
    return _IMAGE_ALT.sub(lambda m: f"{m.group(1) or m.group(2) or ''} {m.group(0)}", raw)
