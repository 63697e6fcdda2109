"""Review findings parsed out of review bodies and inline comments.

Review bots and people write findings in a few shapes, and a sync maintainer
answers each one by its id across review rounds. This module reads them:

- a header line ``F6 — Title`` (em or en dash, hyphen, colon or period; markdown
  ``###``, ``**...**``, bullets allowed) with the severity tag on a following
  line, ``[IMPORTANT Compatibility] Failure: ...``;
- the tag first, ``[CRITICAL Correctness] F1 — Title``;
- ``Severity: high`` lines and ``(critical, correctness)`` tags;
- text with tags but no ``F<n>`` header: one finding per tag, with a generated id;
- status hints: ``unresolved prior F6`` marks F6 unresolved; ``prior F9's ...
  is resolved``, ``That finding is closed``, ``F9 is fixed``, ``F9: closed``
  mark F9 closed (a stub finding when F9 has no section of its own);
- cited lines from blob links ``https://host/owner/repo/blob/<ref>/<path>#La-Lb``
  anywhere in a finding's text.

Everything is parsed line by line with anchored or bounded patterns, so work
grows linearly with the text: a hostile 2 MB review body cannot stall the UI.
Text is kept as GitHub sent it; show it with :mod:`services.sanitize`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from typing import Any
from urllib.parse import unquote

from services.finding_models import CitedRange, Finding
from services.pr_models import Review, ReviewComment
from services.sanitize import one_line

_SEVERITY = r"(?i:(CRITICAL|IMPORTANT|SUGGESTION|HIGH|MEDIUM|LOW|MAJOR|MINOR|NIT))\b"
# "[CRITICAL Correctness] rest" (not a markdown link "[high](url)")
_BRACKET_TAG = re.compile(rf"\[\s*{_SEVERITY}([^\[\]\n]{{0,80}})\](?!\()\s*")
# "(critical, correctness) rest", "(nit) rest"
_PAREN_TAG = re.compile(rf"\(\s*{_SEVERITY}((?:\s*[,/;:|]\s*[^()\n]{{0,60}})?)\)\s*")
_SEVERITY_LINE = re.compile(rf"(?i:severity)[*_`]*[ \t]*[:=][ \t*_`]*{_SEVERITY}[*_`]*[.,;]?\s*")
_CATEGORY_LINE = re.compile(r"(?i:category)[*_`]*[ \t]*[:=][ \t*_`]*([^*_`\n]{1,80})")
# A trailing tag on a header's title: "F6 — Title [IMPORTANT Compatibility]".
_TRAILING_TAG = re.compile(
    rf"\s*(?:\[\s*{_SEVERITY}([^\[\]\n]{{0,80}})\]"
    rf"|\(\s*{_SEVERITY}((?:\s*[,/;:|][^()\n]{{0,60}})?)\))\s*$"
)
_HEADER = re.compile(r"F(\d{1,6})(?![\w'’])[*_]*\s*(?:[—–]|-{1,2}(?=\s)|[:.](?=\s))\s*(.+)")
_STATUS_ONLY = re.compile(
    r"(?i:(?:is\s+)?(?:now\s+)?(?:closed|fixed|resolved|unresolved|open|still\s+open|not\s+fixed))"
    r"\W{0,3}"
)
_MAX_TITLE = 200  # a longer "F6. ..." line is a paragraph that starts with an id, not a header
_LEAD = re.compile(r"[ \t#>*_\-+•]*+")  # heading, quote, bullet and emphasis marks
_RULE = re.compile(r"[-*_][ \t]*[-*_][ \t]*[-*_][-*_ \t]*+")  # a thematic break
_TRAILER = re.compile(
    r"(?i:notes?\s*:|(?:this\s+)?(?:review|comment)\s+(?:was\s+)?(?:auto(?:matically)?[- ]?)?"
    r"generated\b|(?:auto(?:matically)?[- ]?)?generated\s+(?:by|with|using)\b|<sub>)"
)
_FENCE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
# A cheap first look at every line start (in C): only these lines are read in Python.
_CANDIDATE = re.compile(  # run on "\n" + text: the literal first "\n" lets it skip fast
    r"\n(?=[^\n])(?:[ \t]{0,3}(?:```|~~~)|[ \t]*+[-*_][ \t]*[-*_][ \t]*[-*_][-*_ \t]*+$"
    r"|[ \t#>*_\-+•]*+(?:F\d"  # possessive: no backtracking into a long run of marks
    rf"|[\[(][ \t]*{_SEVERITY}|(?i:severity|category|notes?[ \t]*:|<sub>"
    r"|(?:this[ \t]+)?(?:review|comment)[ \t]+(?:was[ \t]+)?(?:auto|generated)"
    r"|(?:auto(?:matically)?[- ]?)?generated[ \t]+(?:by|with|using)\b)))",
    re.MULTILINE,  # for the "$" of a rule line
)
# Bounds on the work a hostile text can cause; real reviews stay far below them.
_MAX_LINES = 20_000  # candidate lines read
_MAX_SECTIONS = 1_000  # findings per text; past it, the rest is the last one's body
_MAX_HINTS = 5_000  # matches per status pattern
_MAX_LINKS = 2_000  # URLs per finding
_MD_LINK = re.compile(r"\[([^\[\]\n]{0,200})\]\([^()\s]{0,2000}\)")

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
_URL = re.compile(r"https?://(?:(?!https?://)[^\s()<>\[\]\"'`])+")
_FRAGMENT = re.compile(r"L(\d{1,9})(?:C\d{1,9})?(?:-L?(\d{1,9})(?:C\d{1,9})?)?")


@dataclass(slots=True)
class _Section:
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
class _Hint:
    status: str
    title: str = ""


@dataclass(slots=True)
class _Scan:
    text: str
    sections: list[_Section] = field(default_factory=list)
    hints: dict[str, _Hint] = field(default_factory=dict)  # by first mention
    seen: dict[str, int] = field(default_factory=dict)  # hinted id -> offset of its first hint


@dataclass(frozen=True, slots=True)
class _Tag:
    severity: str
    category: str
    rest: str  # the line after the tag


@dataclass(frozen=True, slots=True)
class _Header:
    id: str
    tag: _Tag | None
    title: str


_Kind = _Header | _Tag | str  # str: "trailer"


def parse_text(text: str, *, review_id: int | None = None) -> list[Finding]:
    """The findings of one review body or comment body, in the order they appear.

    Sections with an ``F<n>`` header keep the reviewer's id; without any such
    header, each severity tag starts a finding ``R<review_id>-<n>`` (``T<n>``
    when ``review_id`` is None). Status hints set ``status`` and make a stub
    (empty body) for an id that has no section here. Never raises.
    """
    scan = _scan(text)
    prefix = "T" if review_id is None else f"R{review_id}-"
    generated = 0
    for section in scan.sections:
        if not section.id:
            generated += 1
            section.id = f"{prefix}{generated}"
    found: dict[str, Finding] = {}
    for section in scan.sections:
        finding = _finding(scan, section, review_id)
        old = found.get(finding.id)
        found[finding.id] = finding if old is None else _merge(old, finding)
    for finding_id, hint in scan.hints.items():
        if finding_id not in found:
            stub = Finding(finding_id, "", "", hint.title, "", status=hint.status)
            found[finding_id] = replace(stub, review_id=review_id)
    first = {section.id: section.start for section in reversed(scan.sections)}
    first.update({k: v for k, v in scan.seen.items() if k not in first or v < first[k]})
    return sorted(found.values(), key=lambda finding: first[finding.id])


def finding_from_comment(comment: ReviewComment) -> Finding | None:
    """The finding an inline comment holds, anchored at the lines it comments on.

    The id is the body's ``F<n>`` if it names one, else ``C<comment id>``. A
    top-level comment without any tag is still a finding (a person's remark on
    those lines); a reply (``in_reply_to_id``) or an empty body is not.
    An outdated comment cites its original lines on its original commit.
    """
    if comment.in_reply_to_id is not None or not comment.body.strip():
        return None
    scan = _scan(comment.body)
    anchor = _comment_range(comment)
    own = (anchor,) if anchor is not None else ()
    if scan.sections:
        section = scan.sections[0]
        # "[HIGH Correctness] ... This is unresolved prior F4." re-raises F4
        reraised = [key for key, hint in scan.hints.items() if hint.status == "unresolved"]
        section.id = section.id or (reraised[0] if reraised else f"C{comment.id}")
        finding = _finding(scan, section, comment.review_id)
    elif scan.hints:
        finding_id, hint = next(iter(scan.hints.items()))
        finding = Finding(finding_id, "", "", hint.title, "", status=hint.status)
    else:
        body = comment.body.strip()
        finding = Finding(f"C{comment.id}", "", "", _first_sentence(body), body)
        finding = replace(finding, ranges=tuple(_blob_links(body, 0, len(body))))
    return replace(
        finding,
        ranges=_union(own, finding.ranges),
        review_id=comment.review_id,
        comment_ids=(comment.id,),
    )


def collect_findings(reviews: Sequence[Review], comments: Sequence[ReviewComment]) -> list[Finding]:
    """Every finding of a pull request, one per id, merged across review rounds.

    Reviews are read oldest first (by ``submitted_at``); each inline comment
    right after the body of its review. A later mention wins for the text,
    title, severity and status; cited ranges and comment ids are unioned. A
    stub (a bare "F9 is closed") never erases a real title, and a later full
    section with no status hint reopens a finding earlier marked closed.
    Sorted F1, F2, ..., F10, then the generated ids.
    """
    submitted = {review.id: review.submitted_at for review in reviews}
    events: list[tuple[tuple[str, int, str, int], list[Finding]]] = []
    for review in reviews:
        key = (review.submitted_at, 0, "", review.id)
        events.append((key, parse_text(review.body, review_id=review.id)))
    for comment in comments:
        finding = finding_from_comment(comment)
        if finding is not None:
            when = submitted.get(comment.review_id or -1, comment.created_at)
            events.append(((when, 1, comment.created_at, comment.id), [finding]))
    events.sort(key=lambda event: event[0])
    merged: dict[str, Finding] = {}
    for _, findings in events:
        for finding in findings:
            old = merged.get(finding.id)
            merged[finding.id] = finding if old is None else _merge(old, finding)
    return sorted(merged.values(), key=lambda finding: natural_key(finding.id))


def natural_key(finding_id: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key: F1 < F2 < F10, and every ``F<n>`` before the generated ids."""
    head = (0, 0, "") if re.fullmatch(r"F\d+", finding_id) else (1, 0, "")
    parts = (
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", finding_id)
        if part
    )
    return (head, *parts)


def findings_to_json(findings: Sequence[Finding]) -> dict[str, Any]:
    """The ``syncdesk findings --format json`` document, every string made visible."""
    return {
        "findings": [
            {
                "id": one_line(finding.id),
                "severity": one_line(finding.severity),
                "category": one_line(finding.category),
                "title": one_line(finding.title),
                "ranges": [
                    {
                        "path": one_line(cited.path),
                        "start": cited.start,
                        "end": cited.end,
                        "commit": None if cited.commit is None else one_line(cited.commit),
                    }
                    for cited in finding.ranges
                ],
                "status": finding.status,
            }
            for finding in findings
        ]
    }


def findings_to_text(findings: Sequence[Finding]) -> str:
    """A readable listing: one line per finding, then its cited ranges, all made visible."""
    if not findings:
        return "No findings.\n"
    out: list[str] = []
    for finding in findings:
        tag = " ".join(part for part in (finding.severity, finding.category) if part)
        line = one_line(finding.id) + (f" [{one_line(tag)}]" if tag else "")
        line += f" ({finding.status})" if finding.status else ""
        out.append(f"{line} {one_line(finding.title)}".rstrip())
        for cited in finding.ranges:
            where = f"{one_line(cited.path)}:{cited.start}-{cited.end}"
            if cited.commit:
                where += f" at {one_line(cited.commit[:12])}"
            if cited.side == "LEFT":
                where += " (base side)"
            if cited.outdated:
                where += " (outdated)"
            out.append(f"    {where}")
    return "\n".join(out) + "\n"


# -- reading a text ------------------------------------------------------------------------


def _scan(text: str) -> _Scan:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    scan = _Scan(text)
    lines, fences = _read_lines(text)
    has_headers = any(isinstance(kind, _Header) for _, _, kind in lines)
    current: _Section | None = None
    for start, end, kind in lines:
        if len(scan.sections) >= _MAX_SECTIONS and kind != "trailer":
            continue  # a hostile text: the rest stays in the last finding's body
        if isinstance(kind, _Header):
            tag = kind.tag or _lone_tag(scan, current, start)
            _close(current, start)
            current = _Section(kind.id, start, end + 1, title=kind.title)
            if tag is not None:
                current.severity, current.category = tag.severity, tag.category
            scan.sections.append(current)
        elif isinstance(kind, _Tag):
            current = _take_tag(scan, current, kind, (start, end), has_headers=has_headers)
        else:  # a trailer: "Note: ...", "Review generated by ..."
            _close(current, start)
            current = None
    _close(current, len(text))
    _read_hints(scan, fences)
    _read_links(scan)
    return scan


def _lone_tag(scan: _Scan, current: _Section | None, header: int) -> _Tag | None:
    """A tag alone on the line above a header ("[HIGH Correctness]" then "F2 — ...") is its tag."""
    if current is None or current.id or current.prefix:
        return None
    if scan.text[current.body_start : header].strip():
        return None
    scan.sections.pop()
    return _Tag(current.severity, current.category, "")


def _close(section: _Section | None, offset: int) -> None:
    if section is not None:
        section.end = offset


def _take_tag(
    scan: _Scan, current: _Section | None, tag: _Tag, line: tuple[int, int], *, has_headers: bool
) -> _Section | None:
    """Give the section its severity, or start a generated one: the section read next."""
    start, end = line
    if current is not None and (not tag.severity or (current.severity and has_headers)):
        current.category = current.category or tag.category
        return current
    if not tag.severity:  # a "Category:" line outside any finding
        return current
    if current is None or current.severity:
        _close(current, start)
        current = _Section("", start, end + 1, prefix=tag.rest)
        scan.sections.append(current)
    elif not scan.text[current.body_start : start].strip():  # the tag opens the body
        current.prefix, current.body_start = tag.rest, end + 1
    current.severity, current.category = tag.severity, tag.category or current.category
    return current


def _read_lines(text: str) -> tuple[list[tuple[int, int, _Kind]], list[tuple[int, int]]]:
    """The lines that can start or end a finding, and the fenced code blocks.

    Only lines the cheap ``_CANDIDATE`` pattern picks are looked at in Python.
    """
    found: list[tuple[int, int, _Kind]] = []
    fences: list[tuple[int, int]] = []
    fence_open: int | None = None
    for match in islice(_CANDIDATE.finditer("\n" + text), _MAX_LINES):
        start = match.start()  # the "\n" before the line in the padded text: the line's start
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end]
        if _FENCE.match(line):
            if fence_open is None:
                fence_open = start
            else:
                fences.append((fence_open, end))
                fence_open = None
        elif fence_open is None:
            kind = _classify(line)
            if kind is not None:
                found.append((start, end, kind))
    if fence_open is not None:
        fences.append((fence_open, len(text)))
    return found, fences


def _classify(line: str) -> _Kind | None:
    stripped = line.strip()
    if not stripped:
        return None
    if _RULE.fullmatch(stripped):
        return "trailer"
    plain = _plain(stripped)
    if _TRAILER.match(plain):
        return "trailer"
    tag = _tag(plain)
    header = _header(_plain(tag.rest) if tag else plain, tag)
    if header is not None:
        return header
    if tag is not None:
        return tag
    category = _CATEGORY_LINE.match(plain)
    if category is not None:
        return _Tag("", category.group(1).strip(), "")
    return None


def _plain(line: str) -> str:
    """The line without markdown heading, quote, bullet and emphasis marks around it."""
    lead = _LEAD.match(line)
    marks = lead.group() if lead else ""
    text = line[len(marks) :].rstrip()
    for marker in ("**", "__", "*", "_"):  # the closing half of "**F6 — Title**"
        if marker in marks and text.endswith(marker):
            return text[: -len(marker)].rstrip()
    return text


def _tag(plain: str) -> _Tag | None:
    match = _BRACKET_TAG.match(plain) or _PAREN_TAG.match(plain)
    if match is not None:
        rest = plain[match.end() :]
        return _Tag(match.group(1).upper(), _category(match.group(2)), rest.strip())
    match = _SEVERITY_LINE.match(plain)
    if match is None:
        return None
    rest = plain[match.end() :].strip()
    category = _CATEGORY_LINE.match(rest)
    if category is not None:
        return _Tag(match.group(1).upper(), category.group(1).strip(), "")
    return _Tag(match.group(1).upper(), "", rest)


def _category(raw: str) -> str:
    return raw.strip().lstrip(":/|,;-–—").strip()


def _header(plain: str, tag: _Tag | None) -> _Header | None:
    match = _HEADER.match(plain)
    if match is None:
        return None
    title = match.group(2).strip()
    if len(title) > _MAX_TITLE or re.match(r"F\d", title) or _STATUS_ONLY.fullmatch(title):
        return None
    trailing = _TRAILING_TAG.search(title)
    if trailing is not None and tag is None:
        severity = (trailing.group(1) or trailing.group(3)).upper()
        category = _category(trailing.group(2) or trailing.group(4) or "")
        tag = _Tag(severity, category, "")
        title = title[: trailing.start()]
    return _Header(f"F{int(match.group(1))}", tag, _clean_title(title))


def _clean_title(title: str) -> str:
    title = _MD_LINK.sub(r"\1", title).strip()
    for marker in ("**", "__", "*", "_"):
        if len(title) > 2 * len(marker) and title.startswith(marker) and title.endswith(marker):
            return title[len(marker) : -len(marker)].strip()
    return title


def _read_hints(scan: _Scan, fences: list[tuple[int, int]]) -> None:
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
        scan.hints[finding_id] = _Hint(status, title or (old.title if old else ""))
        scan.seen.setdefault(finding_id, offset)


def _named_before(text: str, offset: int) -> str:
    """The finding named last before ``offset`` in its paragraph (looking back 2000 chars)."""
    window = max(0, offset - 2000)
    paragraph = max(text.rfind("\n\n", window, offset), window)
    names = _MENTION.findall(text, paragraph, offset)
    return f"F{int(names[-1])}" if names else ""


def _section_at(scan: _Scan, starts: list[int], offset: int) -> str:
    at = bisect_right(starts, offset) - 1
    if at >= 0 and offset < scan.sections[at].end:
        return scan.sections[at].id
    return ""


def _finding(scan: _Scan, section: _Section, review_id: int | None) -> Finding:
    body = scan.text[section.body_start : section.end]
    body = (f"{section.prefix}\n{body}" if section.prefix else body).strip()
    hint = scan.hints.get(section.id)
    return Finding(
        id=section.id,
        severity=section.severity,
        category=section.category,
        title=section.title or _first_sentence(body),
        body=body,
        ranges=tuple(dict.fromkeys(section.ranges)),
        status=hint.status if hint else "",
        review_id=review_id,
    )


def _first_sentence(body: str) -> str:
    first = next((line.strip() for line in body.split("\n", 20) if line.strip()), "")
    first = _MD_LINK.sub(r"\1", first[:400])
    end = re.search(r"[.!?](?=\s|$)", first)
    sentence = first[: end.end()] if end else first
    return sentence if len(sentence) <= 120 else sentence[:119].rstrip() + "…"


# -- cited ranges --------------------------------------------------------------------------


def _read_links(scan: _Scan) -> None:
    """Give every section the blob links inside it."""
    for section in scan.sections:
        section.ranges = _blob_links(scan.text, section.start, section.end)


def _blob_links(text: str, start: int, end: int) -> list[CitedRange]:
    """Every blob link ``.../blob/<ref>/<path>#La-Lb`` in ``text[start:end]``, in order."""
    if text.find("/blob/", start, end) < 0:
        return []
    found = (_blob_range(url.group()) for url in _URL.finditer(text, start, end))
    return [cited for cited in islice(found, _MAX_LINKS) if cited is not None]


def _blob_range(url: str) -> CitedRange | None:
    _, _, rest = url.partition("://")
    location, _, fragment = rest.partition("#")
    lines = _FRAGMENT.match(fragment)
    parts = location.partition("?")[0].split("/")
    if lines is None or len(parts) < 6 or parts[3] != "blob" or not all(parts[:5]):
        return None
    path = unquote("/".join(parts[5:]), errors="replace")
    first = int(lines.group(1))
    last = int(lines.group(2)) if lines.group(2) else first
    start, end = min(first, last), max(first, last)
    if not path.strip("/") or start < 1 or "\0" in path:
        return None  # a NUL ("%00") names no file: the link is not a citation
    return CitedRange(path, start, end, commit=unquote(parts[4], errors="replace"))


def _comment_range(comment: ReviewComment) -> CitedRange | None:
    outdated = comment.line is None
    if outdated:
        last, first = comment.original_line, comment.original_start_line
        commit = comment.original_commit_id
    else:
        last, first, commit = comment.line, comment.start_line, comment.commit_id
    if last is None or not comment.path:
        return None
    start, end = min(first or last, last), max(first or last, last)
    if start < 1:
        return None
    return CitedRange(
        comment.path,
        start,
        end,
        commit=commit or None,
        side=comment.side or "RIGHT",
        outdated=outdated,
        source="inline",
    )


def _union(first: Sequence[CitedRange], second: Sequence[CitedRange]) -> tuple[CitedRange, ...]:
    return tuple(dict.fromkeys([*first, *second]))


def _merge(old: Finding, new: Finding) -> Finding:
    """``new`` is a later mention of ``old``'s id."""
    stub = not new.body
    if stub:
        title, severity, category = (
            old.title or new.title,
            old.severity or new.severity,
            old.category or new.category,
        )
        body, status = old.body, new.status or old.status
    else:
        title, severity, category = (
            new.title or old.title,
            new.severity or old.severity,
            new.category or old.category,
        )
        body = new.body
        status = new.status or ("" if old.status == "closed" else old.status)
    return Finding(
        id=old.id,
        severity=severity,
        category=category,
        title=title,
        body=body,
        ranges=_union(old.ranges, new.ranges),
        status=status,
        review_id=new.review_id if new.review_id is not None else old.review_id,
        comment_ids=tuple(dict.fromkeys([*old.comment_ids, *new.comment_ids])),
    )
