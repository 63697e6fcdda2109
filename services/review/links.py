"""The lines a finding cites: blob links, paths with lines in prose, an inline comment's anchor.

A review cites code with blob links ``https://host/owner/repo/blob/<ref>/<path>#La-Lb``
anywhere in a finding's text (:func:`blob_ranges`); in prose with ``path:12``,
``path:12-20``, ``path#L12-L20``, a path followed by "line 12" or "lines 12–20" in the
same sentence, or "line 12 of path" (:func:`prose_ranges`, cited at the reviewed head
since they name no commit); and an inline comment is anchored at the lines it comments
on (:func:`comment_range`). All become :class:`~syncdesk.services.review.models.CitedRange`
values; a link or a path that names no line is not a citation.

A word is a path when it has a file extension (``engine.py``, ``Dockerfile.ci.dev``) or
is one of a few extensionless names (``Dockerfile``, ``CODEOWNERS``), and either holds a
``/`` or a name of two characters or more ("e.g." is no file). A bare name stays a bare
name here: :mod:`syncdesk.services.review.paths` finds it in the head's tree.
"""

from __future__ import annotations

import re
from itertools import islice
from urllib.parse import unquote

from syncdesk.services.github.models import ReviewComment
from syncdesk.services.review.models import CitedRange

_MAX_LINKS = 2_000  # URLs per finding: a bound on the work a hostile text can cause
_URL = re.compile(r"https?://(?:(?!https?://)[^\s()<>\[\]\"'`])+")
_FRAGMENT = re.compile(r"L(\d{1,9})(?:C\d{1,9})?(?:-L?(\d{1,9})(?:C\d{1,9})?)?")
# Prose. A path is one run of path characters (possessive: each run is read once).
_PATH = r"[\w.+-][\w./+-]*+"
_TO = r"[ \t]*(?:-|–|—|to|through)[ \t]*"
_PATH_AND_LINES = re.compile(  # "path:12", "path:12-20", "path:L12", "path#L12-L20"
    rf"(?<![\w./+-])(?P<path>{_PATH})"
    r"(?::L?(?P<a>\d{1,9})(?:(?::\d{1,9})?(?:-|–)L?(?P<b>\d{1,9}))?|#L(?P<c>\d{1,9})"
    r"(?:C\d{1,9})?(?:-L?(?P<d>\d{1,9}))?)(?![\w/])"
)
_WORD = re.compile(rf"(?<![\w./+-])[\w+-]*+[./]{_PATH}")  # a word with a "." or "/" in it
# What follows a path in the same sentence: "... line 12", "..., lines 12–20", "... L12-L20"
_LINES_AFTER = re.compile(
    rf"[^\n.!?]{{0,80}}?(?:\b(?i:lines?)[ \t]+(?P<a>\d{{1,9}})(?:{_TO}(?P<b>\d{{1,9}}))?"
    r"|\bL(?P<c>\d{1,9})(?:-L?(?P<d>\d{1,9}))?)\b"
)
_LINES_OF = re.compile(  # "line 12 of path", "lines 12-20 in path"
    rf"\b(?i:lines?)[ \t]+(?P<a>\d{{1,9}})(?:{_TO}(?P<b>\d{{1,9}}))?[ \t]+(?i:of|in)[ \t]+"
    rf"[`'\"]?(?P<path>{_PATH})"
)
_EXTENSION = re.compile(r"[^/]*[^/.]\.[A-Za-z][A-Za-z0-9]{0,9}")
_NAMES = frozenset({"Dockerfile", "Makefile", "CODEOWNERS", "LICENSE", "Jenkinsfile"})
_DOMAINS = frozenset({"com", "org", "net", "io", "dev", "ai", "edu", "gov"})


def blob_ranges(text: str, start: int, end: int) -> list[CitedRange]:
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


# A review system's link to a file's line: Gerrit's ".../+/<change>/<patch set>/<path>@<line>".
_AT_LINE = re.compile(r"/\+/\d{1,12}/\d{1,6}/([^@#?\s]{1,1000})@(\d{1,9})")


def review_system_ranges(text: str, start: int, end: int, head: str | None) -> list[CitedRange]:
    """Every review-system link ``.../+/4242/3/kestrel/serving/retry.py@31`` in
    ``text[start:end]``: that line of that file, at ``head`` (the link names a patch set, not
    a commit)."""
    if text.find("/+/", start, end) < 0:
        return []
    found = []
    for url in islice(_URL.finditer(text, start, end), _MAX_LINKS):
        match = _AT_LINE.search(url.group())
        path = _path(unquote(match.group(1), errors="replace")) if match else None
        if match is not None and path is not None and int(match.group(2)) >= 1:
            line = int(match.group(2))
            found.append(CitedRange(path, line, line, commit=head, source="prose"))
    return found


def prose_ranges(text: str, head: str | None = None) -> list[CitedRange]:
    """Every line range ``text`` cites in prose, in order, at commit ``head`` (None: the head).

    URLs are left out (a blob link is :func:`blob_ranges`'s, and ``host:8080`` is no
    line). Repeats are kept once.
    """
    if not any(mark in text for mark in ("/", ".")):
        return []
    text = _URL.sub(" ", text)
    found: list[tuple[int, CitedRange]] = []
    for match in islice(_PATH_AND_LINES.finditer(text), _MAX_LINKS):
        _cite(found, match, match.start(), match.group("path"), head)
    paths = (word for word in _WORD.finditer(text) if _path(word.group()) is not None)
    words = list(islice(paths, _MAX_LINKS))
    for index, word in enumerate(words):
        stop = words[index + 1].start() if index + 1 < len(words) else len(text)
        end = word.start() + len(word.group().rstrip(".,;:-"))  # "engine.py." ends a sentence
        lines = _LINES_AFTER.match(text, end, min(stop, end + 120))
        if lines is not None:
            _cite(found, lines, word.start(), word.group(), head)
    if "line" in text.lower():
        for match in islice(_LINES_OF.finditer(text), _MAX_LINKS):
            _cite(found, match, match.start(), match.group("path"), head)
    found.sort(key=lambda pair: pair[0])
    return list(dict.fromkeys(cited for _, cited in found))


def _cite(
    found: list[tuple[int, CitedRange]],
    lines: re.Match[str],
    offset: int,
    word: str,
    head: str | None,
) -> None:
    """Add the range a match's line groups ("a"-"b" or "c"-"d") give ``word``, if it is a path."""
    groups = lines.groupdict()
    first, last = groups.get("a") or groups.get("c"), groups.get("b") or groups.get("d")
    path = _path(word)
    if path is None or first is None:
        return
    start, end = sorted((int(first), int(last or first)))
    if start >= 1:
        found.append((offset, CitedRange(path, start, end, commit=head, source="prose")))


def _path(word: str) -> str | None:
    """The path a word names, or None when it is no file name ("e.g.", "v1.2", "github.com")."""
    word = word.rstrip(".,;:-").removeprefix("./").lstrip("/")
    name = word.rsplit("/", 1)[-1]
    if "\0" in word or ".." in word.split("/") or not name:
        return None
    if name in _NAMES:
        return word
    if not _EXTENSION.fullmatch(name):
        return None
    stem, _, extension = name.rpartition(".")
    if "/" not in word and (len(stem) < 2 or extension.lower() in _DOMAINS):
        return None
    return word if any(char.isalpha() for char in stem) else None


def comment_range(comment: ReviewComment) -> CitedRange | None:
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
