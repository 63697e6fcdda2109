"""How the head resolved each conflict: per hunk and per file.

Per hunk, the head's lines are found by placing the hunk in the head's file
(:mod:`syncdesk.services.conflicts.placement`) and compared, byte for byte, with the readings a
maintainer could have chosen: ``dev``, ``main``, ``base``, ``union`` (dev then
main, or main then dev), or the conflict left as it was (``unresolved``, also
when the head's lines still hold markers of any kind); anything else is
``custom``. When the head also changed the common lines next to a hunk (an
"evil" change), the hunk is read honestly: its lines include what changed
around it, it is flagged ``context_changed``, and the next hunk is read as
usual.

Per file, whole-file facts come first: deleted at the head, exactly dev's
blob, exactly main's, exactly the base's. Then the hunks: one resolution
taken in every hunk, with nothing else changed, names the file (a file whose
every hunk took the union is ``union``); any hunk left unresolved makes it
``unresolved``; any other mix is ``custom``. Renames are judged by the names
the head kept, a file-location conflict by whose directory layout it follows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from syncdesk.services.conflicts.hunks import SideHunk
from syncdesk.services.conflicts.markers import ParsedFile, bare
from syncdesk.services.conflicts.merge_tree import ConflictGroup, Stage
from syncdesk.services.conflicts.models import Common, Hunk, Resolution, joined, rebuild
from syncdesk.services.conflicts.placement import place_hunks

_READINGS: tuple[Resolution, ...] = ("dev", "main", "base", "union", "union", "unresolved")
_SHARED_EDGE = 3  # at most this many shared lines on each edge of a conflict
_OPENING = re.compile(r"<{7,}(?: .*)?")
_CLOSING = re.compile(r">{7,}(?: .*)?")


@dataclass(frozen=True, slots=True)
class HeadHunk:
    """The head's reading of one hunk."""

    lines: tuple[str, ...] | None
    start: int | None  # 1-based
    resolution: Resolution
    context_changed: bool


def read_head(parsed: ParsedFile, hunks: Sequence[SideHunk], head: Sequence[str]) -> list[HeadHunk]:
    """Locate and classify each hunk in the head's file ``head``."""
    candidates = [
        [h.dev, h.main, h.base, joined(h.dev, h.main), joined(h.main, h.dev), h.conflict]
        for h in hunks
    ]
    # Placed on lines without endings (a head that turned CRLF into LF is still
    # found), compared with endings (so that head reads as custom, honestly).
    placements = place_hunks(parsed.commons, head, candidates, key=_ending_blind)
    readings = []
    for index, placement in enumerate(placements):
        if not placement.located:
            readings.append(HeadHunk(None, None, "custom", True))
            continue
        lines = tuple(head[placement.start : placement.end])
        if placement.choice is not None:
            resolution = _READINGS[placement.choice]
        elif has_markers(lines):
            resolution = "unresolved"
        elif _spaced_union(lines, hunks[index], parsed.commons[index], parsed.commons[index + 1]):
            resolution = "union"
        else:
            resolution = "custom"
        readings.append(HeadHunk(lines, placement.start + 1, resolution, not placement.exact))
    return readings


def _spaced_union(
    lines: Sequence[str], hunk: SideHunk, before: Sequence[str], after: Sequence[str]
) -> bool:
    """Both sides kept, with the lines zdiff3 moved out of the conflict repeated between.

    zdiff3 (and git's "merge" style) move the lines both sides share at the
    edges of a conflict out of it: two functions appended after the same blank
    lines show as ``\n\n <<<<<<< lion ======= adafactor >>>>>>>``. Keeping both
    in diff3 style (rerere, an editor, by hand) repeats the shared lines:
    ``\n\n lion \n\n adafactor``. So the lines between the two sides may be
    the first lines after the conflict (the shared suffix) followed by the last
    lines before it (the shared prefix), a few of each.
    """
    for first, second in ((hunk.dev, hunk.main), (hunk.main, hunk.dev)):
        middle = len(lines) - len(first) - len(second)
        if middle <= 0 or middle > 2 * _SHARED_EDGE:
            continue
        if (
            tuple(lines[: len(first)]) != first
            or tuple(lines[len(lines) - len(second) :]) != second
        ):
            continue
        between = list(lines[len(first) : len(first) + middle])
        for suffix in range(min(_SHARED_EDGE, len(after), middle) + 1):
            prefix = middle - suffix
            if prefix <= min(_SHARED_EDGE, len(before)) and between == [
                *after[:suffix],
                *before[len(before) - prefix :],
            ]:
                return True
    return False


def _ending_blind(line: str) -> str:
    return line.rstrip("\r\n")


def has_markers(lines: Sequence[str]) -> bool:
    """Whether ``lines`` still hold an opening and a closing conflict marker."""
    opened = False
    for line in lines:
        text = bare(line)
        if _OPENING.fullmatch(text):
            opened = True
        elif opened and _CLOSING.fullmatch(text):
            return True
    return False


def whole_file_reading(
    group: ConflictGroup, head: str | None, at_head: dict[str, str | None]
) -> Resolution | None:
    """The file's resolution when whole-file facts decide it, else None (the hunks decide).

    ``at_head`` maps each path the file had (its path first, then its old
    paths) to its blob id at the head, None when absent.
    """
    if head is None:
        return "unresolved"  # the sync is not built: nothing resolved it yet
    if group.type == "rename" and group.dev and group.main:
        return _renamed(group, at_head)
    if group.type == "file-location" and (group.dev is None) != (group.main is None):
        return _located(group, at_head)
    blob = next((blob for blob in at_head.values() if blob), None)
    if blob is None:
        return "deleted"
    sides: tuple[tuple[Resolution, Stage | None], ...] = (
        ("dev", group.dev),
        ("main", group.main),
        ("base", group.base),
    )
    return next((name for name, stage in sides if stage is not None and stage.oid == blob), None)


def _renamed(group: ConflictGroup, at_head: dict[str, str | None]) -> Resolution:
    """rename/rename: which of the two new names the head kept (both: union)."""
    dev = at_head.get(group.dev.path) if group.dev else None
    main = at_head.get(group.main.path) if group.main else None
    if dev and main:
        return "union"
    if dev:
        return "dev" if group.dev and dev == group.dev.oid else "custom"
    if main:
        return "main" if group.main and main == group.main.oid else "custom"
    if group.base is not None and at_head.get(group.base.path):
        return "base"
    return "deleted"


def _located(group: ConflictGroup, at_head: dict[str, str | None]) -> Resolution:
    """A file one side added where the other side renamed the directory.

    git suggests moving it along with the directory (``group.path``): that is
    the renaming side's layout; keeping it at its old path is the adding side's.
    """
    adder: Resolution = "dev" if group.dev is not None else "main"
    mover: Resolution = "main" if adder == "dev" else "dev"
    added = group.dev or group.main
    oid = added.oid if added else None
    moved = at_head.get(group.path)
    if moved:
        return mover if moved == oid else "custom"
    kept = next((at_head[p] for p in group.old_paths if at_head.get(p)), None)
    if kept:
        return adder if kept == oid else "custom"
    return "deleted"


def hunks_reading(segments: Sequence[Common | Hunk], head_text: str | None) -> Resolution:
    """The file's resolution from its hunks' readings (whole-file facts did not decide)."""
    hunks = [segment for segment in segments if isinstance(segment, Hunk)]
    if not hunks or head_text is None:
        return "custom"
    readings = {hunk.resolution for hunk in hunks}
    if "unresolved" in readings:
        return "unresolved"
    if len(readings) != 1 or any(hunk.head is None for hunk in hunks):
        return "custom"
    (reading,) = readings
    if reading == "custom" or rebuild(segments, [hunk.head for hunk in hunks]) != head_text:
        return "custom"  # the head also changed lines outside the conflicts
    return reading
