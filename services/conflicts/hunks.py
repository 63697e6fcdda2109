"""Turn parsed conflict markers into hunks with each side's true lines and line numbers.

Between the markers, git shows each side's lines, but not always exactly as
the side's file has them: when a side's last line has no final newline, git
adds one inside the conflict (so the markers stay on their own lines). And
the markers say nothing about line numbers: dev's file lacks main's one-sided
changes, so the result's line numbers are not dev's. So each side's hunks are
placed in that side's own file (:mod:`syncdesk.services.conflicts.placement`), comparing lines
without their endings; the lines taken from there are byte-exact, and their
positions are the line numbers blame needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from syncdesk.services.conflicts.markers import ParsedFile, ParsedHunk
from syncdesk.services.conflicts.models import hunk_key
from syncdesk.services.conflicts.placement import place_hunks


@dataclass(frozen=True, slots=True)
class SideHunk:
    """A conflict hunk with its sides read from the side files (the head not yet considered)."""

    dev: tuple[str, ...]
    base: tuple[str, ...]
    main: tuple[str, ...]
    dev_start: int
    base_start: int
    main_start: int
    conflict: tuple[str, ...]
    key: str


@dataclass(frozen=True, slots=True)
class SideFiles:
    """The three stage files' lines; None for a side where the file does not exist."""

    dev: Sequence[str] | None
    base: Sequence[str] | None
    main: Sequence[str] | None


def side_hunks(parsed: ParsedFile, files: SideFiles) -> list[SideHunk]:
    """Each parsed hunk with its sides' exact lines and 1-based start lines."""
    commons = [keyed(run) for run in parsed.commons]
    dev = _place(commons, files.dev, [hunk.dev for hunk in parsed.hunks])
    base = _place(commons, files.base, [hunk.base for hunk in parsed.hunks])
    main = _place(commons, files.main, [hunk.main for hunk in parsed.hunks])
    return [
        _side_hunk(hunk, dev[index], base[index], main[index])
        for index, hunk in enumerate(parsed.hunks)
    ]


def _side_hunk(
    hunk: ParsedHunk,
    dev: tuple[tuple[str, ...], int],
    base: tuple[tuple[str, ...], int],
    main: tuple[tuple[str, ...], int],
) -> SideHunk:
    return SideHunk(
        dev=dev[0],
        base=base[0],
        main=main[0],
        dev_start=dev[1],
        base_start=base[1],
        main_start=main[1],
        conflict=hunk.conflict,
        key=hunk_key(dev[0], main[0]),
    )


def keyed(lines: Sequence[str]) -> list[str]:
    """The lines as placement compares them: without their endings."""
    return [line.rstrip("\r\n") for line in lines]


def _place(
    commons: list[list[str]], lines: Sequence[str] | None, sides: list[tuple[str, ...]]
) -> list[tuple[tuple[str, ...], int]]:
    """Each hunk's lines in the side file ``lines`` and its 1-based start (0: no file)."""
    if lines is None:
        return [(side, 0) for side in sides]
    candidates = [[keyed(side)] for side in sides]
    target = keyed(lines)
    placements = place_hunks(commons, target, candidates)
    found: list[tuple[tuple[str, ...], int]] = []
    for side, placement in zip(sides, placements, strict=True):
        if placement.choice == 0:
            found.append((tuple(lines[placement.start : placement.end]), placement.start + 1))
            continue
        # Not where the alignment put it. main may have moved a line of the common
        # context across the hunk ("import argparse" from above it to below): the
        # diff then anchors that line on the wrong side and slides the hole away
        # from the side's lines. Those lines, once and only once in the file, are
        # the hunk; else keep git's view of the side at the alignment's guess.
        at = _only_place(target, keyed(side))
        if at is not None:
            found.append((tuple(lines[at : at + len(side)]), at + 1))
        else:
            found.append((side, placement.start + 1))
    return found


def _only_place(target: Sequence[str], block: Sequence[str]) -> int | None:
    """The 0-based index where ``block`` (not empty) occurs in ``target``, if exactly once."""
    if not block:
        return None
    width, first = len(block), block[0]
    found = [
        at
        for at, line in enumerate(target[: len(target) - width + 1])
        if line == first and target[at : at + width] == block
    ]
    return found[0] if len(found) == 1 else None
