"""The git plumbing behind :func:`.origin.classify_ranges`, a few processes per call.

- :func:`batch_lookup`: one ``cat-file --batch-check`` resolves many names to
  commits and finds many paths' blobs at a few revisions;
- :func:`diff_hunks` and :func:`map_range`: the ``diff -U0`` hunks of a file
  between two commits, and cited lines moved through them to the newer one;
- :func:`blame_spans`: one ``blame --porcelain`` of a file with many ``-L``
  spans (joined first by :func:`merge_spans`), robust to spans past its end.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from syncdesk.services.conflicts.attribution import Blame, parse_porcelain
from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.runner import Git, first_line
from syncdesk.services.sanitize import one_line

# Pathspecs are literal: a cited path with ``*`` or ``:(glob)`` in it is a file name.
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
# What a name may look like before it goes to ``cat-file --batch-check`` as
# ``<name>^{commit}``: a SHA or a ref, never a control character, and no
# leading ``:`` (``:path`` reads the index, ``:/text`` searches messages).
_NAME = re.compile(r"[^\s:\x00-\x1f\x7f][^\s\x00-\x1f\x7f]{0,199}")
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

Hunk = tuple[int, int, int, int]  # old start, old count, new start, new count (``@@`` header)


def batch_lookup(
    git: Git, names: Iterable[str], revs: Sequence[str], paths: Sequence[str]
) -> tuple[dict[str, str | None], list[dict[str, str]]]:
    """The commits ``names`` name, and each path's blob at each of ``revs``: one ``cat-file``.

    Returns ``{name: full SHA or None}`` and, per rev, ``{path: blob id}`` for
    the paths that are files there. ``<name>^{commit}`` peels a tag and refuses
    a tree or blob; ``<rev>:<path>`` is the path's entry in the rev's tree.
    """
    commits = [name for name in dict.fromkeys(names) if _NAME.fullmatch(name)]
    queries = [f"{name}^{{commit}}" for name in commits]
    queries += [f"{rev}:{path}" for rev in revs for path in paths]
    # -z: queries end with NUL, so a path may hold a newline. Answers are lines:
    # "<oid> <type> <size>", or "<query> missing" (or "ambiguous"), which may
    # itself span lines; it is recognised by starting with the query we sent.
    encoded = [query.encode("utf-8", "surrogateescape") for query in queries]
    out = git.run(["cat-file", "--batch-check", "-z"], input=b"\0".join(encoded) + b"\0").stdout
    answers: list[tuple[str, str] | None] = []
    position = 0
    for query in encoded:
        failed = out.startswith(query + b" ", position)
        if failed:
            position += len(query) + 1
        end = out.find(b"\n", position)
        end = len(out) if end < 0 else end
        oid, _, kind = out[position:end].decode("utf-8", "replace").partition(" ")
        answers.append(None if failed else (oid, kind.partition(" ")[0]))
        position = end + 1
    resolved: dict[str, str | None] = dict.fromkeys(names)
    for name, answer in zip(commits, answers, strict=False):
        resolved[name] = answer[0] if answer and answer[1] == "commit" else None
    blobs: list[dict[str, str]] = []
    for index in range(len(revs)):
        found = answers[len(commits) + index * len(paths) :][: len(paths)]
        blobs.append(
            {path: a[0] for path, a in zip(paths, found, strict=True) if a and a[1] == "blob"}
        )
    return resolved, blobs


def diff_hunks(git: Git, old: str, new: str, path: str) -> list[Hunk] | None:
    """The ``-U0`` hunks of ``path`` from ``old`` to ``new``; None if ``old`` has no such file."""
    # --text: a "binary" file still has lines; --inter-hunk-context=0 and
    # --no-textconv/--no-ext-diff: the user's config must not fuse hunks or
    # rewrite the content; --no-renames: the path is the same at both ends.
    out = git.run(
        ["diff", "-U0", "--inter-hunk-context=0", "--text", "--no-textconv", "--no-ext-diff",
         "--no-renames", old, new, "--", path],
        env=_LITERAL,
    ).stdout  # fmt: skip
    hunks: list[Hunk] = []
    for line in out.split(b"\n"):
        if line.startswith(b"new file mode") and not hunks:
            return None  # the extended header, before any hunk: the path is absent at ``old``
        match = _HUNK.match(line)
        if match:
            a, b, c, d = match.groups()
            hunks.append((int(a), int(b or 1), int(c), int(d or 1)))
    return hunks


def map_range(hunks: Sequence[Hunk], start: int, end: int) -> tuple[int, int, bool]:
    """Map old lines ``start..end`` through ``-U0`` hunks: ``(new start, new end, changed)``.

    In a ``-U0`` header ``@@ -a,b +c,d @@`` a count of 0 means "after line
    a" (or c): ``-a,0`` inserts after old line a, ``+c,0`` deletes so that new
    line c is the last before the gap. Unchanged lines shift by the sizes of
    the hunks above them. When lines of the range were rewritten (or lines
    were inserted inside it), the result is the neighbourhood that replaced
    them: from the first new line of the hunk that took ``start`` to the last
    of the hunk that took ``end``.
    """
    new_start, start_changed = _map_line(hunks, start, first=True)
    new_end, end_changed = _map_line(hunks, end, first=False)
    # Inside the range: a hunk that rewrote some of its lines, or inserted between two of them.
    changed = any(
        (b and a <= end and start < a + b) or (not b and start <= a < end) for a, b, _, _ in hunks
    )
    if new_end < new_start:  # the whole range was deleted: blame the lines around the gap
        new_start, new_end = max(1, new_end), new_end + 1
    return new_start, new_end, changed or start_changed or end_changed


def _map_line(hunks: Sequence[Hunk], line: int, *, first: bool) -> tuple[int, bool]:
    """Old ``line`` at the new side, and whether a hunk rewrote it (then: its hunk's edge)."""
    offset = 0
    for a, b, c, d in hunks:
        if b and a <= line < a + b:  # rewritten (d > 0) or deleted (d == 0) by this hunk
            if d:
                return (c if first else c + d - 1), True
            return (c + 1 if first else c), True
        if (b and a + b - 1 < line) or (not b and a < line):  # wholly above the line
            offset += d - b
    return line + offset, False


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted 1-based inclusive spans with overlapping and touching ones joined."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1] + 1:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return joined


def blame_spans(
    git: Git, rev: str, path: str, spans: list[tuple[int, int]], blob: str
) -> tuple[Blame, int | None]:
    """Blame ``spans`` of ``path`` at ``rev``, and the file's length when a span passed its end.

    git clips an ``-L`` range that runs past the end of the file (so the
    last line it reports is the file's last), but refuses the whole call
    when a range *starts* past it: only then is the blob read to count its
    lines, and the call repeated without those ranges.
    """
    blame = _run_blame(git, rev, path, spans)
    if blame is None:
        length = _line_count(git.run(["cat-file", "blob", blob]).stdout)
        kept = [(start, min(end, length)) for start, end in spans if start <= length]
        blame = _run_blame(git, rev, path, kept) if kept else Blame({}, {})
        if blame is None:
            raise GitCommandError(f"git blame of {one_line(path)} at {rev[:8]} failed")
        return blame, length
    if any(end not in blame.lines for _, end in spans):
        return blame, max(blame.lines, default=0)
    return blame, None


def _run_blame(git: Git, rev: str, path: str, spans: list[tuple[int, int]]) -> Blame | None:
    """``git blame --porcelain`` of ``spans``; None when a span starts past the end."""
    # The porcelain output: for each group of lines, a header "<sha> <orig line>
    # <final line> [<count>]"; the first group of a commit adds "author",
    # "summary", ... and maybe "previous <sha> <path>" or "boundary"; every
    # group has a "filename" line, then each line's content after a TAB.
    # --root keeps a root commit from being reported as a "boundary" (which
    # parse_porcelain drops); an empty --ignore-revs-file clears the user's
    # blame.ignoreRevsFile, which would credit a line to an older commit.
    options = [f"-L{start},{end}" for start, end in spans]
    result = git.run(
        ["blame", "--porcelain", "--root", "--ignore-revs-file=", *options, rev, "--", path],
        check=False,
    )
    if result.status != 0:
        if "has only" in result.stderr:  # "fatal: file <path> has only <n> lines" (LC_ALL=C)
            return None
        raise GitCommandError(f"git blame of {one_line(path)} failed: {first_line(result.stderr)}")
    return parse_porcelain(result.stdout)


def _line_count(data: bytes) -> int:
    """The number of lines git blame sees: a last line without a newline counts too."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
