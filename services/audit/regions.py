"""Whether main rewrote the code around a lost dev line: regions of two ``-U0`` diffs.

Both diffs start at the merge base of dev and the slice tip: one to dev, one
to the slice tip. A dev line sits somewhere in the base's file (inside a
region dev changed, or on an unchanged line); if main rewrote that same code
(:func:`superseding`), dev's line was superseded, not merely dropped next to
an unrelated change of main's. Positions are
doubled so that "between line k and k+1" has a place of its own (``2k+1``):
line ``k`` is ``2k``, an insertion after line ``k`` is ``2k+1``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from syncdesk.services.audit.sources import Region

Span = tuple[int, int]  # (first, last) doubled positions in the merge base's file


def _span(start: int, count: int) -> Span:
    if count == 0:  # git names the line before an empty side
        return (2 * start + 1, 2 * start + 1)
    return (2 * start, 2 * (start + count - 1))


def base_span(dev_regions: Sequence[Region], line: int) -> Span:
    """Where dev's line ``line`` (1-based) comes from in the merge base's file.

    A line dev wrote is the old side of its region (the lines it replaced, or
    the gap it was inserted into); a line dev kept is that same line in the base.
    """
    offset = 0
    for region in dev_regions:
        if region.new_count and region.new_start <= line < region.new_start + region.new_count:
            return _span(region.old_start, region.old_count)
        region_end = region.new_start + region.new_count if region.new_count else region.new_start
        if region_end > line or (region.new_count == 0 and region.new_start >= line):
            break
        offset += region.old_count - region.new_count
    base_line = line + offset
    return (2 * base_line, 2 * base_line)


def superseding(
    span: Span, main_regions: Sequence[Region], similar: Callable[[Region], bool]
) -> Region | None:
    """The region main changed that supersedes the dev line at ``span``, if any.

    Superseded means main's own history explains the loss, at that place:

    - main deleted that code (the lines dev changed, or the code on both sides
      of a line dev inserted): the function or block is gone on main;
    - main wrote, at that place, a version of dev's line (``similar``: both
      edited the same line, a port of dev's change, a rename, a reworded
      comment).

    A rewrite of main's at that place with nothing like dev's line in it does
    not count, nor does a change merely next to it: dropping dev's work
    because main rewrote the neighbourhood is the classic accident.
    """
    low, high = span
    inserted = low == high and low % 2 == 1
    reach = 2 if inserted else 0  # an insertion is at a place: main's change may sit next to it
    for region in main_regions:
        first, last = _span(region.old_start, region.old_count)
        if not (first <= high + reach and low <= last + reach):
            continue
        if region.old_count > 0 and not region.added:
            if not inserted or first < low < last:
                return region  # main deleted this code
        elif region.added and similar(region):
            return region  # main wrote its own version of it here
    return None
