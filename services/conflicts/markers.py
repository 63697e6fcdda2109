"""Read the conflict markers merge-tree wrote into a file.

``git merge-tree`` is run with ``merge.conflictStyle=zdiff3`` and the two
parents' full SHAs as branch names, so every conflict reads::

    <<<<<<< <dev sha>[:<dev path>]
    dev's lines
    ||||||| <abbreviated base>[:<base path>]      (or "merged common ancestors")
    the base's lines
    =======
    main's lines
    >>>>>>> <main sha>[:<main path>]

(the ``:path`` suffixes appear when a side renamed the file). The labels are
known, so a file whose content already holds marker-like lines (a test
fixture with ``=======``, a heredoc with ``<<<<<<< foo``) is not misread: a
conflict opens only at ``<<<<<<< <dev sha>`` and closes only at
``>>>>>>> <main sha>``. The base marker and the separator carry no sha; when a
conflict holds more than one line that could be either, the split whose dev,
base and main parts really occur in the three stage files is taken. Markers
are 7 characters unless a ``conflict-marker-size`` attribute says more; all
markers of one conflict have the same size.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from syncdesk.services.lines import split_lines


@dataclass(frozen=True, slots=True)
class ParsedHunk:
    """One conflict as written: each side's lines as they appear between the markers."""

    dev: tuple[str, ...]
    base: tuple[str, ...]
    main: tuple[str, ...]
    conflict: tuple[str, ...]  # the whole block, markers included


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """A conflicted file: common runs (one more than hunks) around the hunks."""

    commons: tuple[tuple[str, ...], ...]
    hunks: tuple[ParsedHunk, ...]
    dev_path: str | None = None  # from the markers' labels, when a side renamed the file
    base_path: str | None = None
    main_path: str | None = None


@dataclass
class StageLines:
    """The stage files' lines, indexed lazily to test where a part occurs."""

    dev: Sequence[str] = ()
    base: Sequence[str] = ()
    main: Sequence[str] = ()
    _index: dict[int, dict[str, list[int]]] = field(default_factory=dict)

    def contains(self, which: int, part: Sequence[str]) -> bool:
        """Whether ``part`` is a run of lines of stage ``which`` (0 dev, 1 base, 2 main).

        Line endings are ignored: git writes a missing final newline inside a conflict.
        """
        lines = (self.dev, self.base, self.main)[which]
        if not part:
            return True
        if which not in self._index:
            index: dict[str, list[int]] = {}
            for position, line in enumerate(lines):
                index.setdefault(bare(line), []).append(position)
            self._index[which] = index
        wanted = [bare(line) for line in part]
        for start in self._index[which].get(wanted[0], []):
            if [bare(line) for line in lines[start : start + len(wanted)]] == wanted:
                return True
        return False


def bare(line: str) -> str:
    """A line without its ending (LF or CRLF)."""
    if line.endswith("\n"):
        line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
    return line


_OPEN = re.compile(r"(<{7,}) (.*)")
_CLOSE = re.compile(r"(>{7,}) (.*)")


def _label_path(label: str, sha: str) -> str | bool | None:
    """False: not this side's label; None: the label names no path; else the path."""
    if label == sha:
        return None
    if label.startswith(sha + ":"):
        return label[len(sha) + 1 :]
    return False


def parse_markers(text: str, dev_sha: str, main_sha: str, stages: StageLines) -> ParsedFile:
    """Split merge-tree's conflicted ``text`` into common runs and hunks."""
    lines = split_lines(text)
    commons: list[tuple[str, ...]] = []
    hunks: list[ParsedHunk] = []
    paths: dict[str, str | None] = {}
    run_start = position = 0
    while position < len(lines):
        found = _hunk_at(lines, position, dev_sha, main_sha, stages, paths)
        if found is None:
            position += 1
            continue
        hunk, end = found
        commons.append(tuple(lines[run_start:position]))
        hunks.append(hunk)
        run_start = position = end
    commons.append(tuple(lines[run_start:]))
    return ParsedFile(
        tuple(commons), tuple(hunks), paths.get("dev"), paths.get("base"), paths.get("main")
    )


def _hunk_at(
    lines: list[str],
    start: int,
    dev_sha: str,
    main_sha: str,
    stages: StageLines,
    paths: dict[str, str | None],
) -> tuple[ParsedHunk, int] | None:
    opening = _OPEN.fullmatch(bare(lines[start]))
    if opening is None:
        return None
    dev_path = _label_path(opening.group(2), dev_sha)
    if dev_path is False:
        return None
    size = len(opening.group(1))
    close = None
    for position in range(start + 1, len(lines)):
        closing = _CLOSE.fullmatch(bare(lines[position]))
        if closing and len(closing.group(1)) == size:
            main_path = _label_path(closing.group(2), main_sha)
            if main_path is not False:
                close = position
                break
    if close is None:
        return None
    split = _split(lines, start, close, size, stages)
    if split is None:
        return None
    base_marker, separator = split
    paths.setdefault("dev", dev_path if isinstance(dev_path, str) else None)
    paths.setdefault("main", main_path if isinstance(main_path, str) else None)
    base_label = bare(lines[base_marker])[size + 1 :]
    sha, colon, base_path = base_label.partition(":")
    paths.setdefault("base", base_path if colon and " " not in sha else None)
    hunk = ParsedHunk(
        dev=tuple(lines[start + 1 : base_marker]),
        base=tuple(lines[base_marker + 1 : separator]),
        main=tuple(lines[separator + 1 : close]),
        conflict=tuple(lines[start : close + 1]),
    )
    return hunk, close + 1


def _split(
    lines: list[str], start: int, close: int, size: int, stages: StageLines
) -> tuple[int, int] | None:
    """The positions of the base marker and the separator between ``start`` and ``close``."""
    base_marker = re.compile(rf"\|{{{size}}}(?: .*)?")
    separator = "=" * size
    bases = [p for p in range(start + 1, close) if base_marker.fullmatch(bare(lines[p]))]
    separators = [p for p in range(start + 1, close) if bare(lines[p]) == separator]
    pairs = [(b, s) for b in bases for s in separators if b < s]
    if len(pairs) <= 1:
        return pairs[0] if pairs else None
    for b, s in pairs:  # marker-like content: take the split the stage files confirm
        if (
            stages.contains(0, lines[start + 1 : b])
            and stages.contains(1, lines[b + 1 : s])
            and stages.contains(2, lines[s + 1 : close])
        ):
            return b, s
    return pairs[0]
