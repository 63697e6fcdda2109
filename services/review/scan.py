"""One review text read into finding sections, table rows and status hints.

:func:`scan_text` reads the text as markdown (:mod:`~syncdesk.services.review.reading`)
and walks its plain lines with the line grammar (:mod:`~syncdesk.services.review.grammar`):

- a header starts a section under the reviewer's id; a tag grades the section it is in,
  or starts one with a generated id (a tag alone above a header is that header's);
- an item of a list whose lead-in announces findings ("Two non-blocking follow-ups:")
  starts a section, graded by the lead-in, that ends with the item;
- the structural units a review is made of open one too (``docs/findings.md``, "What opens a
  finding"): a block opening with a bold title (a badge, a heading that grades or announces
  what it holds, or a citation after it), a line that only cites code, a file's comment
  under a ``<summary>`` naming the file (``40-48: ...``), a review mail's thread
  (``File path:`` then ``PS3, Line 31:``), and a row of a table whose columns cite code;
  such a unit that only praises is none, and one opening struck through, or holding a line
  that only says "Resolving.", is closed;
- a section ends at the next one, at a trailer or a thematic break, at the ``</details>``
  that closes the block whose ``<summary>`` opened it, at a heading that is not a
  finding's (unless it is a sub-heading of the finding's own), and at the end of the
  list item a generated section started in.

It then reads the id rows of its tables (:mod:`~syncdesk.services.review.tables`) and
the status hints of its prose (:mod:`~syncdesk.services.review.hints`).
:func:`section_finding` makes a section a :class:`~syncdesk.services.review.models.Finding`
with the ranges it cites.

Offsets, not copies, are kept while reading, and every pattern is anchored, bounded or
gated by a substring test, so a hostile 2 MB text cannot stall the UI.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from syncdesk.services.review.actionable import nothing_to_act_on
from syncdesk.services.review.grammar import (
    BoldTitle,
    Header,
    LineKind,
    RangeLabel,
    Tag,
    announces_findings,
    bold_title,
    classify,
    first_sentence,
    heading_grade,
    mail_file,
    mail_thread,
    range_label,
    summary_path,
)
from syncdesk.services.review.hints import Hints, PlainText, read_hints
from syncdesk.services.review.links import blob_ranges, prose_ranges, review_system_ranges
from syncdesk.services.review.models import CitedRange, Finding
from syncdesk.services.review.reading import Line, Reading, Role, read_markdown
from syncdesk.services.review.severity import lead_in_severity
from syncdesk.services.review.tables import CitedRow, IdRow, cited_rows, id_rows

# A bound on the work a hostile text can cause; real reviews stay far below it.
_MAX_SECTIONS = 1_000  # findings per text; past it, the rest is the last one's body
# A line that closes the finding it is in: "Resolving.", "Resolved by 6d20ae6", "Fixed in abc1234."
_RESOLVING = re.compile(
    r"(?i:(?:resolving|resolved|fixed|addressed|done)(?:[ \t]+(?:by|in)[ \t]+[0-9a-f]{7,40})?)"
    r"[ \t]*[.!]?"
)
_AT_LINK = re.compile(r"[ \t]*https?://\S{1,2000}@\d{1,9}[ \t]*")  # a mail's link to a line
_MARKUP_ONLY = re.compile(r"[ \t]*(?:</?[A-Za-z][^<>\n]{0,200}>[ \t]*)+")  # "</details>"


@dataclass(slots=True)
class Section:
    """A finding's section while it is being read: offsets into the text."""

    id: str  # "" for a generated id, given once the whole text is read
    start: int  # its first line (the header, the tag or the list item that opened it)
    body_start: int
    end: int = -1
    severity: str = ""
    category: str = ""
    title: str = ""
    prefix: str = ""  # the rest of the line that opened it: the body's first words
    limit: int = -1  # where it ends at the latest (its list item's end), -1: no limit
    opener: Role = Role.TEXT  # what opened it: a heading, a <summary>, a line
    heading: int = 0  # the level of the heading that opened it
    status: str = ""  # "closed" when struck through or marked resolved in its own text
    titled: bool = False  # opened by a bold title: a tag inside its paragraphs grades nothing
    thread: bool = False  # a review mail's thread: the next "File <path>:" line ends it
    depth: int = 0  # how many <details> blocks held it when it opened
    written: str = ""  # the reviewer's spelling of its id ("R01"), when it differs
    cited: tuple[CitedRange, ...] = ()  # what a table row cites in its own columns


@dataclass(slots=True)
class Scan:
    """One text as it is read: its sections in order, its id rows and its hints."""

    text: str
    reading: Reading
    plain: PlainText
    sections: list[Section] = field(default_factory=list)
    rows: dict[str, IdRow] = field(default_factory=dict)
    hints: Hints = field(default_factory=Hints)
    line_starts: list[int] = field(default_factory=list)

    def lines_between(self, start: int, end: int) -> list[Line]:
        """The plain lines that start in ``[start, end)``."""
        first = bisect_left(self.line_starts, start)
        last = bisect_left(self.line_starts, end)
        return list(self.reading.lines[first:last])


def scan_text(text: str) -> Scan:
    """The sections, id rows and status hints of one text (line ends made ``\\n``)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    reading = read_markdown(text)
    scan = Scan(text, reading, PlainText(reading.lines))
    scan.line_starts = [line.start for line in reading.lines]
    kinds = [classify(line) for line in reading.lines]
    has_headers = any(isinstance(kind, Header) for kind in kinds)
    announced = [announces_findings(item.lead_in) for item in reading.items]
    current: Section | None = None
    # The heading announcing or grading what it holds: (its level, its severity word or "").
    graded: tuple[int, str] | None = None
    mailed = ""  # the file a review mail's "File <path>:" line named
    details: list[tuple[str, str]] = []  # the open <details> blocks: (file named, grade)
    files_open = 0  # how many of them name a file (counted: a hostile text nests thousands)
    for line, kind in zip(reading.lines, kinds, strict=True):
        if line.role is Role.HEADING:
            if graded is not None and line.heading <= graded[0]:
                graded = None
            grade = heading_grade(line.plain)
            if grade or announces_findings(line.plain):  # "🔴 Critical", "Issues", "Findings"
                graded = (line.heading, grade)
        if current is not None and 0 <= current.limit < line.start:
            current.end, current = current.limit, None
        if len(scan.sections) >= _MAX_SECTIONS and kind != "trailer":
            continue  # a hostile text: the rest stays in the last finding's body
        in_list = line.item >= 0 and announced[line.item]
        if line.role is Role.SUMMARY:
            details.append((summary_path(line.plain), heading_grade(line.plain)))
            files_open += bool(details[-1][0])
        elif line.role is Role.DETAILS_END and details:
            files_open -= bool(details.pop()[0])
            if current is not None and current.depth > len(details):
                _close(current, line.start)  # the file's block that held it is closed
                current = None
        before = current
        labelled = _file_comment(line) if kind is None and files_open else None
        if labelled is not None:
            current = _open_file_comment(scan, current, line, details, labelled)
            continue
        if mailed and current is not None and _AT_LINK.fullmatch(line.plain):
            _close(current, line.start)  # a mail thread's own link, on the line above it
            current = None
        thread = mail_thread(line.plain) if mailed and kind is None else None
        named = mail_file(line.plain) if kind is None else ""
        if named:
            mailed = named
            if current is not None and current.thread:
                _close(current, line.start)
                current = None
        if thread is not None:
            current = _open_thread(scan, current, line, mailed, thread)
            continue
        if kind is None and not in_list and _citation_label(line):
            current = _open_cited(scan, current, line)
            continue
        titled = bold_title(line) if kind is None and not in_list else None
        if titled is not None and (titled.severity or graded is not None or _cites(titled.rest)):
            current = _open_titled(scan, current, line, titled, graded)
        elif isinstance(kind, Tag) and current is not None and current.titled and not line.first:
            pass  # "Nit: ..." inside a titled finding's paragraph: its words, not a new finding
        else:
            current = _step(scan, current, line, kind, has_headers=has_headers, in_list=in_list)
        if current is not None and current is not before and line.struck:
            current.status = "closed"  # its opening line is struck through: withdrawn or done
        elif current is not None and current is before and _RESOLVING.fullmatch(line.plain):
            current.status = "closed"
    _close(current, len(text))
    # A unit opened by its shape alone (a bold title, a file's comment) that only praises
    # ("Keeping dev's default is right. LGTM.") is no finding.
    scan.sections = [
        section
        for section in scan.sections
        if not (section.titled and nothing_to_act_on(scan.text[section.start : section.end]))
    ]
    scan.rows = id_rows(reading.tables)
    _add_cited_rows(scan, cited_rows(reading.tables))
    starts = [section.start for section in scan.sections]
    scan.hints = read_hints(scan.plain, lambda offset: _section_at(scan, starts, offset))
    return scan


def _step(
    scan: Scan,
    current: Section | None,
    line: Line,
    kind: LineKind | None,
    *,
    has_headers: bool,
    in_list: bool,
) -> Section | None:
    """Read one line: the section read after it."""
    if kind == "trailer":
        _close(current, line.start)
        return None
    if line.role is Role.DETAILS_END:
        if current is not None and current.opener is Role.SUMMARY:
            _close(current, line.start)
            return None
        return current
    if isinstance(kind, Header):
        return _open_header(scan, current, line, kind, in_list=in_list)
    if current is not None and _ends_at(current, line):
        _close(current, line.start)
        current = None
    if isinstance(kind, Tag):
        return _take_tag(scan, current, kind, line, has_headers=has_headers, in_list=in_list)
    if in_list:  # an item announced as a finding
        item = scan.reading.items[line.item]
        if nothing_to_act_on(" ".join(x.plain for x in scan.lines_between(item.start, item.end))):
            return current  # "- none", "- No further comments."
        _close(current, line.start)
        section = Section("", line.start, line.start, limit=item.end)
        section.severity = lead_in_severity(item.lead_in)
        scan.sections.append(section)
        return section
    return current


def _file_comment(line: Line) -> RangeLabel | None:
    """A block opening with a range (``40-48:``), inside a ``<details>`` that names a file."""
    if not line.first or line.role is not Role.TEXT:
        return None
    return range_label(line.plain)


def _open_file_comment(
    scan: Scan,
    current: Section | None,
    line: Line,
    details: list[tuple[str, str]],
    label: RangeLabel,
) -> Section:
    """A per-file comment of a collapsed review: a finding on those lines of the file the
    innermost ``<summary>`` names, graded by its labels or the block that groups it
    ("Nitpick comments"); a comment with nothing to act on ("... LGTM.") is none."""
    _close(current, line.start)
    path = next(path for path, _ in reversed(details) if path)
    grade = next((grade for _, grade in reversed(details) if grade), "")
    section = Section("", line.start, line.end + 1, title=label.title)
    section.severity = label.severity or grade
    section.cited = (CitedRange(path, label.first, label.last, source="prose"),)
    section.depth = len(details)
    section.titled = True
    scan.sections.append(section)
    return section


def _open_thread(
    scan: Scan, current: Section | None, line: Line, path: str, lines: tuple[int, int]
) -> Section:
    """A review mail's thread (``PS3, Line 31: <the line quoted>``): a finding on those lines
    of the file named above it; its words start on the next line (the quote is code)."""
    _close(current, line.start)
    section = Section("", line.start, line.end + 1)
    section.cited = (CitedRange(path, lines[0], lines[1], source="prose"),)
    section.thread = True
    scan.sections.append(section)
    return section


_LABEL_REST = re.compile(r"[\s`*_:#L\d.,;()\[\]–—-]*")


def _citation_label(line: Line) -> bool:
    """Whether a block's first line is only a citation (``**blocks.py:50**``, a per-file
    entry of an overview): it opens a finding, whose words are what follows it."""
    if not line.first or line.role is not Role.TEXT or len(line.plain) > 300:
        return False
    cited = prose_ranges(line.plain)
    rest = line.plain.replace(cited[0].path, "", 1) if len(cited) == 1 else "x"
    return _LABEL_REST.fullmatch(rest) is not None


def _open_cited(scan: Scan, current: Section | None, line: Line) -> Section:
    """A finding opened by a line that only cites code: its words are the lines after it
    (the line's own range is read with the section's, as any citation in it)."""
    _close(current, line.start)
    section = Section("", line.start, line.end + 1)
    scan.sections.append(section)
    return section


def _cites(words: str) -> bool:
    """Whether a bold title's line cites code after it (``— kestrel/serving/batcher.py:L70``)."""
    return bool(words) and bool(prose_ranges(words))


def _open_titled(
    scan: Scan,
    current: Section | None,
    line: Line,
    titled: BoldTitle,
    graded: tuple[int, str] | None,
) -> Section:
    """A finding opened by a bold title, graded by its badge or the heading above it."""
    _close(current, line.start)
    section = Section("", line.start, line.end + 1, title=titled.title, prefix=titled.rest)
    section.severity = titled.severity or (graded[1] if graded else "")
    section.titled = True
    scan.sections.append(section)
    return section


def _ends_at(section: Section, line: Line) -> bool:
    """Whether a heading that is no finding's ends the section (a sub-heading does not)."""
    return line.role is Role.HEADING and line.heading <= (section.heading or 6)


def _open_header(
    scan: Scan, current: Section | None, line: Line, header: Header, *, in_list: bool
) -> Section:
    tag = header.tag or _lone_tag(scan, current, line.start)
    _close(current, line.start)
    section = Section(header.id, line.start, line.end + 1, title=header.title, prefix=header.rest)
    section.written = header.written
    section.opener, section.heading = line.role, line.heading
    if tag is not None:
        section.severity, section.category = tag.severity, tag.category
    if in_list:
        item = scan.reading.items[line.item]
        section.limit = item.end
        section.severity = section.severity or lead_in_severity(item.lead_in)
    scan.sections.append(section)
    return section


def _lone_tag(scan: Scan, current: Section | None, header: int) -> Tag | None:
    """A tag alone on the line above a header ("[HIGH Correctness]" then "F2 — ...") is its tag."""
    if current is None or current.id or current.prefix:
        return None
    if scan.text[current.body_start : header].strip():
        return None
    scan.sections.pop()
    return Tag(current.severity, current.category, "")


def _close(section: Section | None, offset: int) -> None:
    if section is not None:
        section.end = offset if section.limit < 0 else min(offset, section.limit)


def _take_tag(
    scan: Scan,
    current: Section | None,
    tag: Tag,
    line: Line,
    *,
    has_headers: bool,
    in_list: bool,
) -> Section | None:
    """Give the section its severity, or start a generated one: the section read next.

    In a text with headers, a later tag inside a finding grades it rather than splitting
    it, unless it opens a list item of an announced list or a block in bold.
    """
    # A block opening with a bold tag ("**blocking:** ...") after a finding with no
    # reviewer's id is a unit of its own, headers elsewhere in the text or not.
    opens_unit = current is not None and not current.id and line.first and line.lead > 0
    bold = tag.bold or opens_unit
    joins = current is not None and (not tag.severity or (current.severity and has_headers))
    if current is not None and joins and not in_list and not bold:
        current.category = current.category or tag.category
        return current
    if not tag.severity:  # a "Category:" line outside any finding
        return current
    opens_body = current is not None and not scan.text[current.body_start : line.start].strip()
    if current is None or current.severity or in_list or (bold and not opens_body):
        _close(current, line.start)
        current = Section("", line.start, line.end + 1, prefix=tag.rest)
        if line.item >= 0:
            current.limit = scan.reading.items[line.item].end
        scan.sections.append(current)
    elif opens_body:  # the tag opens the body: "[IMPORTANT Compatibility] Failure: ..."
        current.prefix, current.body_start = tag.rest, line.end + 1
    current.severity, current.category = tag.severity, tag.category or current.category
    return current


def _add_cited_rows(scan: Scan, rows: list[CitedRow]) -> None:
    """Each row of a table that cites code (``| P1 | retry.py | 30-34 | ... |``) as a finding
    of its own, in the text's order; a finding whose section held the table ends before it."""
    for row in rows[: max(0, _MAX_SECTIONS - len(scan.sections))]:
        for section in scan.sections:
            if section.start < row.start < section.end:
                section.end = row.start
        cited = (CitedRange(row.path, row.first, row.last, source="prose"),) if row.first else ()
        section = Section("", row.start, row.end, row.end, severity=row.severity)
        section.category, section.title, section.prefix = row.category, row.title, row.text
        section.cited = cited
        scan.sections.append(section)
    scan.sections.sort(key=lambda section: section.start)


def _section_at(scan: Scan, starts: list[int], offset: int) -> str:
    at = bisect_right(starts, offset) - 1
    if at >= 0 and offset < scan.sections[at].end:
        return scan.sections[at].id
    return ""


def section_finding(
    scan: Scan, section: Section, review_id: int | None, head: str | None = None
) -> Finding:
    """The finding a section holds, with the ranges it cites and the status its id's hints give."""
    body = _trimmed(scan.text[section.body_start : section.end])
    body = (f"{section.prefix}\n{body}" if section.prefix else body).strip()
    hint = scan.hints.by_id.get(section.id)
    return Finding(
        id=section.id,
        severity=section.severity,
        category=section.category,
        title=section.title or first_sentence(section.prefix or _first_plain(scan, section)),
        body=body,
        ranges=tuple(
            dict.fromkeys([*section.cited, *section_ranges(scan, section.start, section.end, head)])
        ),
        status=hint.status if hint else section.status,
        review_id=review_id,
        written=section.written,
    )


def _trimmed(body: str) -> str:
    """The body without the HTML-only lines (``</details>``) that close it."""
    lines = body.rstrip().split("\n")
    while lines and (not lines[-1].strip() or _MARKUP_ONLY.fullmatch(lines[-1])):
        lines.pop()
    return "\n".join(lines)


def _first_plain(scan: Scan, section: Section) -> str:
    """The plain lines of the section's first block (a sentence may run over a line break)."""
    block: list[str] = []
    for line in scan.lines_between(section.body_start, section.end):
        if block and (line.first or line.role is not Role.TEXT):
            break
        if line.plain and line.role is not Role.ROW:
            block.append(line.plain)
    return "\n".join(block)


def section_ranges(scan: Scan, start: int, end: int, head: str | None) -> tuple[CitedRange, ...]:
    """The ranges ``text[start:end]`` cites: blob links, then prose citations at ``head``.

    A prose citation that only repeats a link's lines (a link's own text,
    ``[a.py#L3-L9](https://.../blob/.../lumen/a.py#L3-L9)``) is the link's.
    """
    links = blob_ranges(scan.text, start, end) + review_system_ranges(scan.text, start, end, head)
    lines = scan.lines_between(start, end)
    # A block's lines joined with spaces: "path ... (lines 14-20)" may run over a line break.
    blocks = "".join(
        ("\n" if line.first or line.role is not Role.TEXT else " ") + line.plain for line in lines
    )
    words = "\n".join(
        [blocks] + [target for line in lines for target in line.links if "://" not in target]
    )
    if end > scan.reading.extent:  # past what was read as markdown
        words += "\n" + scan.text[max(scan.reading.extent, start) : end]
    prose = [r for r in prose_ranges(words, head) if not any(_repeats(r, link) for link in links)]
    return tuple(dict.fromkeys([*links, *prose]))


def _repeats(prose: CitedRange, link: CitedRange) -> bool:
    """Whether a prose citation names a link's lines (its path, or the path's end)."""
    same_lines = (prose.start, prose.end) == (link.start, link.end)
    return same_lines and (link.path == prose.path or link.path.endswith("/" + prose.path))
