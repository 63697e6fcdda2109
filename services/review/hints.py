"""Status hints in a review's prose: which earlier findings are still open, closed or superseded.

Reviews carry findings across rounds by id and say what became of them:
``unresolved prior F6`` and ``F6 remains open`` (unresolved); ``prior F9's <what> is
resolved``, ``F9 is fixed``, ``F9: closed``, ``R3 is addressed``, ``fixes F3`` and
``That finding is closed`` (closed); ``R3 is superseded by R9`` and ``supersedes F3``
(superseded). :func:`read_hints` finds them in the plain lines of a text (code and
markup already gone, :class:`PlainText`), the last one of an id winning.

Hints never cross a line, and name ``F<n>`` or ``R<n>`` ids only: ``fixes #123`` is
GitHub's way to close an issue, not a finding. Patterns start with a literal or are
gated by a substring test, so the regex engine skips through prose quickly.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice

from syncdesk.services.review.reading import Line

_MAX_HINTS = 5_000  # matches per pattern: a bound on the work a hostile text can cause

_WORDS_OPEN = r"(?:unresolved|open|not[ \t]+(?:yet[ \t]+)?(?:fixed|resolved|closed|addressed))"
_WORDS_DONE = r"(?:closed|fixed|resolved|addressed)"
_PRIOR = r"(?:(?:prior|previous|earlier)[ \t]+)"
_ID = r"(?P<letter>[FR])(\d{1,6})\b(?!-\w)"
# "F6 is unresolved", "F6: open", "F9 is closed", "F9: fixed" (not "F9: closed-loop ...")
_LINE_END = r"(?=[ \t]*(?:[.;,!)]|\n|$))"
_ID_HINT = re.compile(
    rf"(?<!\w){_ID}(?i:"
    rf"(?P<open>[ \t]+(?:is|remains)[ \t]+(?:still[ \t]+)?{_WORDS_OPEN}(?![\w-])"
    rf"|[ \t]*:[ \t]*(?:unresolved|open|still[ \t]+open|not[ \t]+fixed){_LINE_END})"
    r"|(?P<superseded>[ \t]+(?:is|was|has[ \t]+been)[ \t]+(?:now[ \t]+)?superseded(?![\w-])"
    rf"|[ \t]*(?::[ \t]*|\([ \t]*)superseded\b)"
    rf"|[ \t]+(?:is|was|are|has[ \t]+been)[ \t]+(?:now[ \t]+)?{_WORDS_DONE}(?![\w-])"
    rf"|[ \t]*:[ \t]*(?:closed|fixed|resolved|addressed){_LINE_END})"
)
# "unresolved prior F6", "fixes F3", "supersedes R2", "prior F9's <what> is resolved",
# "That finding is closed"
_WORD_HINT = re.compile(
    rf"(?i:\b(?:(?P<open>unresolved)[ \t]+{_PRIOR}?(?:finding[ \t]+)?"
    r"(?-i:(?P<open_id>[FR]\d{1,6}))\b(?!-\w)"
    rf"|(?P<over>supersedes)[ \t]+{_PRIOR}?(?-i:(?P<over_id>[FR]\d{{1,6}}))\b(?!-\w)"
    rf"|(?:closes|closed|fixes|fixed|resolves|resolved|addresses|addressed)[ \t]*:?[ \t]+"
    rf"{_PRIOR}?(?-i:(?P<done_id>[FR]\d{{1,6}}))\b(?!-\w)"
    rf"|{_PRIOR}(?-i:(?P<named_id>[FR]\d{{1,6}}))['’]s[ \t]+(?P<title>[^.\n]{{1,200}}?)[ \t]+"
    rf"(?:is|was|has[ \t]+been)[ \t]+(?:now[ \t]+)?{_WORDS_DONE}\b"
    rf"|(?P<that>(?:that|this|the)[ \t]+finding[ \t]+(?:is|was|has[ \t]+been)[ \t]+"
    rf"(?:now[ \t]+)?{_WORDS_DONE})\b))"
)
_HINT_WORDS = ("resolved", "closed", "fixed", "closes", "fixes", "resolves", "address", "supersede")
_MENTION = re.compile(r"(?<!\w)([FR])(\d{1,6})\b(?!-\w)")


@dataclass(slots=True)
class Hint:
    """The status the last hint on an id gives it, and the title the hint names."""

    status: str
    title: str = ""


@dataclass(slots=True)
class PlainText:
    """The plain lines of a text joined into one string, a blank line between blocks."""

    lines: Sequence[Line]
    text: str = ""
    starts: list[int] = field(default_factory=list)  # where each line is in ``text``

    def __post_init__(self) -> None:
        parts: list[str] = []
        offset = 0
        for line in self.lines:
            if line.first and parts:
                parts.append("")
                offset += 1
            self.starts.append(offset)
            parts.append(line.plain)
            offset += len(line.plain) + 1
        self.text = "\n".join(parts)

    def line_of(self, offset: int) -> int:
        """The index of the line holding ``offset`` of :attr:`text`."""
        return max(0, bisect_right(self.starts, offset) - 1)


@dataclass(slots=True)
class Hints:
    """The hints of a text: the status of each id, where it was first hinted, which lines."""

    by_id: dict[str, Hint] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)  # id -> offset of its first hint
    lines: set[int] = field(default_factory=set)  # the lines that hold a hint


def read_hints(plain: PlainText, section_at: Callable[[int], str]) -> Hints:
    """The status hints of a text, in order: the last one of an id wins.

    ``section_at(offset)`` names the finding whose section holds a text offset, for
    "That finding is closed" said inside a finding's own text.
    """
    if not plain.lines:
        return Hints()
    text = plain.text
    events: list[tuple[int, str, str, str]] = []  # offset in plain text, id, status, title
    for m in islice(_ID_HINT.finditer(text), _MAX_HINTS):
        status = "unresolved" if m.group("open") else "closed"
        status = "superseded" if m.group("superseded") else status
        events.append((m.start(), f"{m.group('letter')}{int(m.group(2))}", status, ""))
    lowered = text.lower()
    if any(word in lowered for word in _HINT_WORDS):
        events.extend(_word_hints(plain, section_at))
    hints = Hints()
    for offset, finding_id, status, title in sorted(events):
        line = plain.line_of(offset)
        old = hints.by_id.get(finding_id)
        hints.by_id[finding_id] = Hint(status, title or (old.title if old else ""))
        hints.seen.setdefault(finding_id, plain.lines[line].start)
        hints.lines.add(line)
    return hints


def _word_hints(
    plain: PlainText, section_at: Callable[[int], str]
) -> list[tuple[int, str, str, str]]:
    text = plain.text
    events: list[tuple[int, str, str, str]] = []
    for m in islice(_WORD_HINT.finditer(text), _MAX_HINTS):
        if m.group("that"):
            raw = plain.lines[plain.line_of(m.start())].start
            named = _named_before(text, m.start()) or section_at(raw)
            if named:
                events.append((m.start(), named, "closed", ""))
            continue
        status = "unresolved" if m.group("open") else "closed"
        status = "superseded" if m.group("over") else status
        named = (
            m.group("open_id") or m.group("over_id") or m.group("done_id") or m.group("named_id")
        )
        title = (m.group("title") or "").strip()
        events.append((m.start(), f"{named[0]}{int(named[1:])}", status, title))
    return events


def _named_before(text: str, offset: int) -> str:
    """The finding named last before ``offset`` in its paragraph (looking back 2000 chars)."""
    window = max(0, offset - 2000)
    paragraph = max(text.rfind("\n\n", window, offset), window)
    names = _MENTION.findall(text, paragraph, offset)
    return f"{names[-1][0]}{int(names[-1][1])}" if names else ""
