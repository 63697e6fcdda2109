"""The list of source SHAs in a PR description, read as a reviewer would read it.

The list follows a heading such as "Ordered 100 source SHAs" or "Source
commits", or else is the body's longest run of SHA lines. SHAs may be short or
full, separated by spaces, newlines, commas, bullets or table cells, in
backticks or as commit links (:func:`normal_lines` turns links into SHAs).
Only bounded regular expressions are used: any text is read in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_FULL_HEX = re.compile(r"[0-9a-fA-F]{7,40}")
# A commit link (``/commit/<sha>``, or a PR's ``/commits/<sha>``) stands for its SHA.
# Neither pattern lets its bounded scan run over the character that starts it
# (":" after the scheme, "["): a megabyte of "https://" or "[" is then read once,
# not 300 characters from every place (3.9 s on 1 MB of "[" before).
_COMMIT_URL = re.compile(
    r"https?://[^\s()<>\[\]:]{0,300}?/commits?/([0-9a-fA-F]{7,40})(?![0-9A-Za-z])[^\s()<>\[\]]{0,300}"
)
_MD_LINK = re.compile(r"\[[^\[\]\n]{0,300}\]\(\s*([0-9a-fA-F]{7,40})\s*\)")
_HTML_TAG = re.compile(r"<[^<>\n]{0,300}>")
_FENCE = re.compile(r"\s*(?:```|~~~)[^\n]{0,40}")
_TABLE_RULE = re.compile(r"[\s|:\-]*")
_BULLET = re.compile(r"\s*(?:[-*+•·◦▪‣]|[0-9]{1,4}[.)])\s+")
_SEPARATORS = re.compile(r"[\s,;:`'\"()\[\]{}|•·◦▪‣*>_~]+")
# The heading of a SHA list, "Ordered 100 source SHAs": group 1 is the count it claims.
HEADING = re.compile(
    r"\bordered\s+(?:([0-9]{1,7})\s+)?(?:source\s+)?(?:shas?|commits?)\b"
    r"|\bsource\s+(?:shas|commits)\b",
    re.IGNORECASE,
)


def normal_lines(body: str) -> list[str]:
    """The body's lines with commit links replaced by their SHA and HTML tags blanked."""
    text = _COMMIT_URL.sub(r"\1", body)
    text = _MD_LINK.sub(r"\1", text)
    return _HTML_TAG.sub(" ", text).splitlines()


def is_sha(token: str) -> bool:
    """Whether ``token`` is all hex, 7 to 40 digits: a short or full SHA."""
    return _FULL_HEX.fullmatch(token) is not None


def split_tokens(text: str) -> list[str]:
    """The words of ``text`` between separators and marks, lower case, without end dots."""
    return [t.strip(".").lower() for t in _SEPARATORS.split(text) if t.strip(".")]


def _line_shas(line: str) -> list[str] | None:
    """The SHAs a list line holds; [] for a blank line; None for a line of prose."""
    if _FENCE.fullmatch(line) or _TABLE_RULE.fullmatch(line):
        return []
    if line.lstrip().startswith("|"):
        cells = [c.strip(" `*").lower() for c in line.strip().strip("|").split("|")]
        return next(([c] for c in cells if is_sha(c)), None)
    bullet = _BULLET.match(line)
    tokens = split_tokens(line[bullet.end() :] if bullet else line)
    if not tokens:
        return []
    if all(is_sha(t) for t in tokens):
        return tokens
    return [tokens[0]] if is_sha(tokens[0]) else None  # "<sha> subject", git log --oneline


def _section(lines: Sequence[str], start: int, rest: str) -> tuple[list[str], int]:
    """The SHAs listed under a heading on line ``start``, and the line after the list."""
    found = [t for t in split_tokens(rest) if is_sha(t)]
    prose_before = 0
    index = start + 1
    while index < len(lines):
        if HEADING.search(lines[index]):
            break
        shas = _line_shas(lines[index])
        if shas is None:
            prose_before += 1
            if found or prose_before > 3:
                break
        else:
            found += shas
        index += 1
    return found, index


def find_list(lines: Sequence[str]) -> tuple[list[str], range, int | None]:
    """The body's SHA list, the lines it spans, and the count its heading claims."""
    best: tuple[list[str], range, int | None] = ([], range(0), None)
    for number, line in enumerate(lines):
        heading = HEADING.search(line)
        if heading is None:
            continue
        shas, end = _section(lines, number, line[heading.end() :])
        if shas and len(shas) >= len(best[0]):
            best = (shas, range(number, end), int(heading[1]) if heading[1] else None)
    if best[0]:
        return best
    return (*_largest_run(lines), None)


def _largest_run(lines: Sequence[str]) -> tuple[list[str], range]:
    """With no heading: the longest run of list lines (blank lines do not end a run)."""
    best: tuple[list[str], range] = ([], range(0))
    run: list[str] = []
    start = 0
    for number, line in enumerate([*lines, "."]):
        shas = _line_shas(line) if number < len(lines) else None
        if shas is None:
            if len(run) > len(best[0]):
                best = (run, range(start, number))
            run, start = [], number + 1
        else:
            run += shas
    return best
