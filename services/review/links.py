"""The lines a finding cites: blob links in its text, and an inline comment's anchor.

A review cites code with blob links ``https://host/owner/repo/blob/<ref>/<path>#La-Lb``
anywhere in a finding's text (:func:`blob_ranges`), and an inline comment is
anchored at the lines it comments on (:func:`comment_range`). Both become
:class:`~syncdesk.services.review.models.CitedRange` values; a link that names no file
or no line is not a citation.
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
