"""One review text read into finding sections and status hints.

:func:`scan_text` walks the lines :func:`~syncdesk.services.review.grammar.read_lines`
picks: a header or a tag starts a section (a tag alone above a header is that
header's), a trailer ends one. It then reads the status hints of the whole
text (``unresolved prior F6``, ``F9 is fixed``, ``That finding is closed``),
outside fenced code, and gives every section the blob links inside it.
:func:`section_finding` makes a section a :class:`~syncdesk.services.review.models.Finding`.

Offsets, not copies, are kept while reading, and every pattern is anchored,
bounded or gated by a substring test, so a hostile 2 MB text cannot stall the UI.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import islice

from syncdesk.services.review.grammar import Header, Tag, first_sentence, read_lines
from syncdesk.services.review.links import blob_ranges
from syncdesk.services.review.models import CitedRange, Finding

# Bounds on the work a hostile text can cause; real reviews stay far below them.
_MAX_SECTIONS = 1_000  # findings per text; past it, the rest is the last one's body
_MAX_HINTS = 5_000  # matches per status pattern

# Status hints never cross a line. Patterns start with a literal or are gated by a
# substring test, so the regex engine skips through prose quickly.
_WORDS_OPEN = r"(?:unresolved|open|not[ \t]+(?:yet[ \t]+)?(?:fixed|resolved|closed|addressed))"
_WORDS_DONE = r"(?:closed|fixed|resolved|addressed)"
_PRIOR = r"(?:(?:prior|previous|earlier)[ \t]+)"
# "F6 is unresolved", "F6: open", "F9 is closed", "F9: fixed" (not "F9: closed-loop ...")
_LINE_END = r"(?=[ \t]*(?:[.;,!)]|\n|$))"
_ID_HINT = re.compile(
    r"F(?<!\wF)(\d{1,6})\b(?!-\w)(?i:"
    rf"(?P<open>[ \t]+(?:is|remains)[ \t]+(?:still[ \t]+)?{_WORDS_OPEN}(?![\w-])"
    rf"|[ \t]*:[ \t]*(?:unresolved|open|still[ \t]+open|not[ \t]+fixed){_LINE_END})"
    rf"|[ \t]+(?:is|was|are|has[ \t]+been)[ \t]+(?:now[ \t]+)?{_WORDS_DONE}(?![\w-])"
    rf"|[ \t]*:[ \t]*(?:closed|fixed|resolved){_LINE_END})"
)
# "unresolved prior F6", "fixes F3", "prior F9's <what> is resolved", "That finding is closed"
_WORD_HINT = re.compile(
    rf"(?i:\b(?:(?P<open>unresolved)[ \t]+{_PRIOR}?(?:finding[ \t]+)?"
    r"(?-i:F(?P<open_id>\d{1,6}))\b(?!-\w)"
    rf"|(?:closes|closed|fixes|fixed|resolves|resolved)[ \t]*:?[ \t]+{_PRIOR}?"
    r"(?-i:F(?P<done_id>\d{1,6}))\b(?!-\w)"
    rf"|{_PRIOR}(?-i:F(?P<named_id>\d{{1,6}}))['’]s[ \t]+(?P<title>[^.\n]{{1,200}}?)[ \t]+"
    rf"(?:is|was|has[ \t]+been)[ \t]+(?:now[ \t]+)?{_WORDS_DONE}\b"
    rf"|(?P<that>(?:that|this|the)[ \t]+finding[ \t]+(?:is|was|has[ \t]+been)[ \t]+"
    rf"(?:now[ \t]+)?{_WORDS_DONE})\b))"
)
_HINT_WORDS = ("resolved", "closed", "fixed", "closes", "fixes", "resolves", "addressed")
_MENTION = re.compile(r"\bF(\d{1,6})\b(?!-\w)")


@dataclass(slots=True)
class Section:
    """A finding's section while it is being read: offsets into the text."""

    id: str  # "" for a generated id, given once the whole text is read
    start: int  # its first line (the header, or the tag that opened it)
    body_start: int
    end: int = -1
    severity: str = ""
    category: str = ""
    title: str = ""
    prefix: str = ""  # the rest of the tag line that opens the body
    ranges: list[CitedRange] = field(default_factory=list)


@dataclass(slots=True)
class Hint:
    """The status the last hint on an id gives it, and the title the hint names."""

    status: str
    title: str = ""


@dataclass(slots=True)
class Scan:
    """One text as it is read: its sections in order, and the hints by id."""

    text: str
    sections: list[Section] = field(default_factory=list)
    hints: dict[str, Hint] = field(default_factory=dict)  # by first mention
    seen: dict[str, int] = field(default_factory=dict)  # hinted id -> offset of its first hint


def scan_text(text: str) -> Scan:
    """The sections, status hints and cited ranges of one text (line ends made ``\\n``)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    scan = Scan(text)
    lines, fences = read_lines(text)
    has_headers = any(isinstance(kind, Header) for _, _, kind in lines)
    current: Section | None = None
    for start, end, kind in lines:
        if len(scan.sections) >= _MAX_SECTIONS and kind != "trailer":
            continue  # a hostile text: the rest stays in the last finding's body
        if isinstance(kind, Header):
            tag = kind.tag or _lone_tag(scan, current, start)
            _close(current, start)
            current = Section(kind.id, start, end + 1, title=kind.title)
            if tag is not None:
                current.severity, current.category = tag.severity, tag.category
            scan.sections.append(current)
        elif isinstance(kind, Tag):
            current = _take_tag(scan, current, kind, (start, end), has_headers=has_headers)
        else:  # a trailer: "Note: ...", "Review generated by ..."
            _close(current, start)
            current = None
    _close(current, len(text))
    _read_hints(scan, fences)
    _read_links(scan)
    return scan


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
        section.end = offset


def _take_tag(
    scan: Scan, current: Section | None, tag: Tag, line: tuple[int, int], *, has_headers: bool
) -> Section | None:
    """Give the section its severity, or start a generated one: the section read next."""
    start, end = line
    if current is not None and (not tag.severity or (current.severity and has_headers)):
        current.category = current.category or tag.category
        return current
    if not tag.severity:  # a "Category:" line outside any finding
        return current
    if current is None or current.severity:
        _close(current, start)
        current = Section("", start, end + 1, prefix=tag.rest)
        scan.sections.append(current)
    elif not scan.text[current.body_start : start].strip():  # the tag opens the body
        current.prefix, current.body_start = tag.rest, end + 1
    current.severity, current.category = tag.severity, tag.category or current.category
    return current


def _read_hints(scan: Scan, fences: list[tuple[int, int]]) -> None:
    """Record the status hints of the text, in order: the last one of an id wins."""
    text = scan.text
    events: list[tuple[int, str, str, str]] = []  # offset, id, status, title
    for m in islice(_ID_HINT.finditer(text), _MAX_HINTS):
        status = "unresolved" if m.group("open") else "closed"
        events.append((m.start(), f"F{int(m.group(1))}", status, ""))
    lowered = text.lower()
    words = any(word in lowered for word in _HINT_WORDS)
    starts = [section.start for section in scan.sections]
    for m in islice(_WORD_HINT.finditer(text) if words else iter(()), _MAX_HINTS):
        if m.group("that"):
            named = _named_before(text, m.start()) or _section_at(scan, starts, m.start())
            if named:
                events.append((m.start(), named, "closed", ""))
            continue
        status = "unresolved" if m.group("open") else "closed"
        number = m.group("open_id") or m.group("done_id") or m.group("named_id")
        events.append((m.start(), f"F{int(number)}", status, (m.group("title") or "").strip()))
    fence_starts = [start for start, _ in fences]
    for offset, finding_id, status, title in sorted(events):
        at = bisect_right(fence_starts, offset) - 1
        if at >= 0 and offset < fences[at][1]:
            continue  # code, not prose
        old = scan.hints.get(finding_id)
        scan.hints[finding_id] = Hint(status, title or (old.title if old else ""))
        scan.seen.setdefault(finding_id, offset)


def _named_before(text: str, offset: int) -> str:
    """The finding named last before ``offset`` in its paragraph (looking back 2000 chars)."""
    window = max(0, offset - 2000)
    paragraph = max(text.rfind("\n\n", window, offset), window)
    names = _MENTION.findall(text, paragraph, offset)
    return f"F{int(names[-1])}" if names else ""


def _section_at(scan: Scan, starts: list[int], offset: int) -> str:
    at = bisect_right(starts, offset) - 1
    if at >= 0 and offset < scan.sections[at].end:
        return scan.sections[at].id
    return ""


def section_finding(scan: Scan, section: Section, review_id: int | None) -> Finding:
    """The finding a section holds, with the status the last hint on its id gives."""
    body = scan.text[section.body_start : section.end]
    body = (f"{section.prefix}\n{body}" if section.prefix else body).strip()
    hint = scan.hints.get(section.id)
    return Finding(
        id=section.id,
        severity=section.severity,
        category=section.category,
        title=section.title or first_sentence(body),
        body=body,
        ranges=tuple(dict.fromkeys(section.ranges)),
        status=hint.status if hint else "",
        review_id=review_id,
    )


def _read_links(scan: Scan) -> None:
    """Give every section the blob links inside it."""
    for section in scan.sections:
        section.ranges = blob_ranges(scan.text, section.start, section.end)
