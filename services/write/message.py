"""The repair commit's message: kept, with a short list of what syncdesk wrote, signed off.

The replaced repair's message is kept as it is, and gains (or updates) one
paragraph, just above the trailers::

    Files written by syncdesk:
    - pkg/core.py (updated)
    - pkg/old.py (deleted)

A later write merges its files into that paragraph (a file listed again takes
its newest word), so the list says every file syncdesk ever wrote into this
repair. The maintainer's ``Signed-off-by`` is then added by git
(:func:`syncdesk.services.git.commit.with_signoff`). Paths are written on one line
with control characters made visible: a commit message is read in terminals.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from syncdesk.services.git.commit import split_trailers, with_signoff
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import one_line, visible

BLOCK_HEADER = "Files written by syncdesk:"
MAX_LISTED = 50
_ENTRY = re.compile(r"- (?P<what>.+) \((?P<verb>[a-z ]+)\)")
_MORE = re.compile(r"- \.\.\. and \d+ more")


def default_message(branch: str) -> str:
    """The message of a branch's first repair."""
    return f"Repair {visible(branch)}: fixes after the sync merge\n"


def repair_message(
    git: Git,
    base: str | None,
    branch: str,
    written: Iterable[tuple[str, str]],
    *,
    squashed: Iterable[tuple[str, str]] = (),
    signoff: str | None = None,
) -> str:
    """The new repair's message.

    ``base`` is the replaced repair's message (None: a first repair);
    ``written`` the ``(path, verb)`` of this write; ``squashed`` the
    ``(sha, subject)`` of further commits folded into the repair; ``signoff``
    the maintainer's ``Name <email>`` (None: no sign-off added).
    """
    body, trailers = split_trailers(base or default_message(branch))
    body, listed = _without_block(body)
    for path, verb in written:
        listed[_path(path)] = f"- {_path(path)} ({verb})"
    for sha, subject in squashed:
        what = f"{sha[:12]} {one_line(visible(subject))}"
        listed[what] = f"- {what} (squashed)"
    message = body.rstrip("\n") + "\n\n" + _block(listed)
    if trailers:
        message += "\n\n" + trailers
    message += "\n"
    return with_signoff(message, signoff) if signoff else message


def _path(path: str) -> str:
    """A raw path on one line, readable: invalid UTF-8 as U+FFFD, controls spelled out."""
    return one_line(visible(path))


def _without_block(body: str) -> tuple[str, dict[str, str]]:
    """``body`` without syncdesk's paragraph, and that paragraph's entries by path."""
    paragraphs = re.split(r"\n[ \t]*\n", body)
    kept: list[str] = []
    listed: dict[str, str] = {}
    for paragraph in paragraphs:
        lines = paragraph.split("\n")
        if lines[0].strip() != BLOCK_HEADER:
            kept.append(paragraph)
            continue
        for line in lines[1:]:
            if not line.strip() or _MORE.fullmatch(line.strip()):
                continue
            match = _ENTRY.fullmatch(line.strip())
            listed[match["what"] if match else line] = line.strip()
    return "\n\n".join(kept), listed


def _block(listed: dict[str, str]) -> str:
    lines = list(listed.values())
    shown_lines = lines[:MAX_LISTED]
    if len(lines) > MAX_LISTED:
        shown_lines.append(f"- ... and {len(lines) - MAX_LISTED} more")
    return "\n".join([BLOCK_HEADER, *shown_lines])
