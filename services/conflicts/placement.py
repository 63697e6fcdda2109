"""Find where each conflict hunk sits in another version of the file.

The conflicted result is a *frame*: common runs ``C0 H1 C1 H2 ... Hk Ck``
with a hole for each hunk. Any version of the file the merge relates to
(dev's file, main's, the base's, the head's resolution) is the frame with
each hole filled by some lines, give or take changes elsewhere: dev's file
lacks main's one-sided changes, and the head may have changed common lines
too (an "evil" merge). :func:`place_hunks` finds each hole's lines.

How: the frame's common lines are matched against the target with a
patience diff (:mod:`syncdesk.services.conflicts.linediff`), a hunk standing
for a line that matches nothing. The lines a hunk may hold (its candidates')
are never anchors around it: when main moved a block that dev edited in
place, merge-tree keeps main's moved copy among the common lines, and a head
that took dev's side holds the block only inside the hunk; anchored there,
the copy would drag the alignment across the hunk and leave it empty. Each
hunk lies in a gap between matched lines. Within a gap the target must read
``prefix + hole + suffix`` with the gap's common lines as prefix and suffix:
the hole is what is left. That is exact, but a diff can slide equal lines
across a hole (dev's side ends with a blank line and so does the context), so
the gaps around a hunk are first merged across short matched runs and the
merged window is solved as a pattern, preferring for each hole one of the
*candidates* (dev, main, union...): the reading that makes the hole exactly a
known resolution wins.

When a window does not read exactly because common lines changed in the
target away from the hunks (by the head, or by main alone, for a head that
took dev's file), it is read again with those changed stretches free and
every hunk one of its candidates: the diff may have paired lines that both a
hunk and its context hold ("]" and a blank line) the wrong way, and the
stretches on their own would keep that pairing. When the common lines right
around a hunk were changed in the target, the hunk's lines are what remains
after stripping the context that did survive, and the placement says it was
not exact.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from syncdesk.services.conflicts.linediff import matching_blocks
from syncdesk.services.lines import common_prefix

Line = Hashable
# Backtracking steps one pattern search may take before it gives up (see _Solver):
# a real window solves in tens of steps; a window of many holes between equal
# short runs ("x" between 30 holes) has exponentially many readings to refute.
_BUDGET = 20_000


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one hunk's lines sit in the target."""

    start: int  # 0-based index in the target of the hunk's first line (or insertion point)
    end: int  # 0-based index after its last line
    choice: int | None  # index of the candidate the lines equal; None for none
    exact: bool  # the common lines around the hunk are intact in the target
    located: bool = True  # False: several hunks shared a rewritten region; a guess


class _Hole:
    """Stands for a hunk in the frame: equal to nothing, so never matched."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


_FREE_HOLE = -1
_FREE = _Hole(_FREE_HOLE)  # a stretch of the window that may read as anything


@dataclass(slots=True)
class _Gap:
    """A stretch between matched lines: frame[f0:f1] against target[t0:t1]."""

    f0: int
    f1: int
    t0: int
    t1: int
    holes: list[int]


def place_hunks(
    commons: Sequence[Sequence[Line]],
    target: Sequence[Line],
    candidates: Sequence[Sequence[Sequence[Line]]],
    key: Callable[[Any], Line] | None = None,
) -> list[Placement]:
    """Place each hunk of the frame ``commons`` (one more run than hunks) in ``target``.

    ``candidates[k]`` are the known readings of hunk ``k``, in order of
    preference. Lines are compared exactly; ``key`` (if given) maps lines to
    what the diff matches on, which lets placement survive, say, a changed line
    ending while the comparison of candidates stays exact.
    """
    holes = len(candidates)
    if len(commons) != holes + 1:
        raise ValueError("commons must have one run more than there are hunks")
    frame: list[Line] = []
    starts: list[int] = []
    for index, run in enumerate(commons):
        frame.extend(run)
        if index < holes:
            starts.append(len(frame))
            frame.append(_Hole(index))
    keyed_frame = frame if key is None else [f if isinstance(f, _Hole) else key(f) for f in frame]
    keyed_target = target if key is None else [key(line) for line in target]
    # A hole matches nothing, but it is not blank to the diff: the lines it may
    # hold are never anchors around it (see matching_blocks), so a copy of them
    # in the common lines (main moved the block dev edited) cannot pull the
    # alignment onto the hunk's own lines in the target.
    held = {
        at: {line if key is None else key(line) for option in candidates[hole] for line in option}
        for hole, at in enumerate(starts)
    }
    blocks = matching_blocks(keyed_frame, keyed_target, held)
    gaps = _gaps(blocks, starts, len(frame), len(target))
    solver = _Solver(frame, target, candidates)
    placements: dict[int, Placement] = {}
    for window in _windows(gaps, candidates):
        placements.update(solver.solve_window(window))
    return [placements[index] for index in range(holes)]


def _gaps(
    blocks: list[tuple[int, int, int]], holes: list[int], frame: int, target: int
) -> list[_Gap]:
    """The unmatched stretches between matched runs (with the holes they hold)."""
    bounds = [(0, 0, 0), *blocks, (frame, target, 0)]
    gaps: list[_Gap] = []
    for (i0, j0, size), (i1, j1, _) in pairwise(bounds):
        f0, t0 = i0 + size, j0 + size
        if i1 > f0 or j1 > t0:
            inside = range(bisect_left(holes, f0), bisect_left(holes, i1))
            gaps.append(_Gap(f0, i1, t0, j1, list(inside)))
    return gaps


def _windows(gaps: list[_Gap], candidates: Sequence[Sequence[Sequence[Line]]]) -> list[list[_Gap]]:
    """Group each gap with a hole together with its neighbours across short matched runs.

    A run no longer than the longest candidate of the holes beside it may be
    lines that slid out of a hole, so the gaps on both sides are solved as one.
    """
    windows: list[list[_Gap]] = []
    for gap in gaps:
        if windows:
            previous = windows[-1][-1]
            run = gap.f0 - previous.f1
            holes = [*previous.holes, *gap.holes]
            reach = max((len(c) for h in holes for c in candidates[h]), default=0)
            if holes and run <= reach:
                windows[-1].append(gap)
                continue
        windows.append([gap])
    return [window for window in windows if any(gap.holes for gap in window)]


class _Solver:
    """Reads each window of the target as the frame with its holes filled.

    What it searches: a window is a stretch of the frame, literal runs with
    holes between them (``L0 H L1 H ... Lk``), against a stretch of the target.
    A reading is a (start, end) in the target for every hole such that the
    literal runs appear between them exactly. :meth:`_match` looks for one by
    depth-first search: for hole ``k`` it tries the ends that make the hole one
    of its candidates first, then every place where literal ``k + 1`` fits, in
    order, and backtracks when a later literal does not fit. The first reading
    found wins, so a hole is a known resolution whenever some reading allows it.

    Why a budget: when the literal runs are short and repeat (a lone blank
    line or ``]`` between many hunks), the number of readings to try before
    concluding that none exists grows exponentially with the holes. Each search
    therefore stops after ``_BUDGET`` backtracking steps.

    What it returns when the budget runs out: the same as when no reading
    exists, because the search cannot tell the two apart. :meth:`solve_window`
    falls back from the whole window to the window with its hunk-free gaps
    freed, then to each gap on its own, and last to :meth:`_loose`, which strips
    the surviving context and marks the placement ``exact=False`` (and
    ``located=False`` for holes it could not find at all). A placement is
    never claimed exact unless a reading was found.
    """

    def __init__(
        self,
        frame: list[Line],
        target: Sequence[Line],
        candidates: Sequence[Sequence[Sequence[Line]]],
    ) -> None:
        self.frame, self.target, self.candidates = frame, target, candidates

    def solve_window(self, window: list[_Gap]) -> dict[int, Placement]:
        """Place the holes of a window: exactly as a whole, else gap by gap.

        Between the two, the window is read once more with each gap that holds
        no hunk (common lines changed in the target: by the head, or by main
        alone when the head took dev's file) free to be anything, and every
        hunk required to be one of its candidates. Where nothing unique tells
        them apart, the diff pairs equal lines by position: when dev's side
        holds "]", "", "[[p]]" like the common run before the next hunk, the
        common run may be paired with dev's, cutting the hunk short. The
        pattern would undo that, but a change elsewhere in the window keeps it
        from reading exactly, and gap by gap the diff's pairing would stand.
        """
        first, last = window[0], window[-1]
        solved = self._pattern(self.frame[first.f0 : last.f1], first.t0, last.t1)
        if solved is not None:
            return solved
        if any(not gap.holes for gap in window):
            solved = self._pattern(self._freed(window), first.t0, last.t1, known=True)
            if solved is not None:
                return solved
        placements: dict[int, Placement] = {}
        for gap in window:  # an evil change somewhere in the window: each gap on its own
            if gap.holes:
                alone = self._pattern(self.frame[gap.f0 : gap.f1], gap.t0, gap.t1)
                placements.update(alone if alone is not None else self._loose(gap))
        return placements

    def _freed(self, window: list[_Gap]) -> list[Line]:
        """The window's frame with each gap that holds no hole replaced by a free stretch."""
        items: list[Line] = []
        for index, gap in enumerate(window):
            if index:
                items.extend(self.frame[window[index - 1].f1 : gap.f0])  # matched lines
            if gap.holes:
                items.extend(self.frame[gap.f0 : gap.f1])
            else:
                items.append(_FREE)
        return items

    @staticmethod
    def _literals(items: Sequence[Line]) -> tuple[list[list[Line]], list[int]]:
        """The literal runs between holes, and the holes (``_FREE_HOLE`` for a free stretch)."""
        literals: list[list[Line]] = [[]]
        holes: list[int] = []
        for item in items:
            if isinstance(item, _Hole):
                holes.append(item.index)
                literals.append([])
            else:
                literals[-1].append(item)
        return literals, holes

    def _pattern(
        self, items: Sequence[Line], t0: int, t1: int, *, known: bool = False
    ) -> dict[int, Placement] | None:
        """Read target[t0:t1] as literal, hole, literal, ... exactly, or return None.

        With ``known``, every hole must read as one of its candidates.
        """
        literals, holes = self._literals(items)
        text = self.target[t0:t1]
        head, tail = literals[0], literals[-1]
        limit = len(text) - len(tail)
        if limit < len(head) or list(text[: len(head)]) != head or list(text[limit:]) != tail:
            return None
        index: dict[Line, list[int]] = {}  # line -> its positions in the window
        if len(holes) > 1:
            for position, line in enumerate(text):
                index.setdefault(line, []).append(position)
        found = self._match(literals, holes, text, (len(head), limit), index, known)
        if found is None:
            return None
        return {
            hole: Placement(t0 + start, t0 + end, self._choice(hole, text[start:end]), True)
            for hole, (start, end) in zip(holes, found, strict=True)
            if hole != _FREE_HOLE
        }

    def _match(
        self,
        literals: list[list[Line]],
        holes: list[int],
        text: Sequence[Line],
        bounds: tuple[int, int],
        index: dict[Line, list[int]],
        known: bool,
    ) -> list[tuple[int, int]] | None:
        """Depth-first search for (start, end) of each hole; literal k + 1 follows hole k.

        Iterative, so a window with hundreds of hunks cannot exhaust the stack,
        and bounded, so a pathological window gives up instead of hanging.
        """
        last = len(holes) - 1
        levels: list[tuple[int, Iterator[int]]] = []  # per hole placed: its start, its options
        chosen: list[tuple[int, int]] = []
        position, limit = bounds
        budget = _BUDGET
        while True:
            if len(chosen) == last:
                if position <= limit and (
                    not known or self._fills(holes[last], text[position:limit])
                ):
                    return [*chosen, (position, limit)]
            else:
                k = len(chosen)
                bounds = (position, limit)
                ends = self._ends(holes[k], literals[k + 1], text, bounds, index, known)
                levels.append((position, ends))
            while levels:
                budget -= 1
                if budget < 0:
                    return None
                del chosen[len(levels) - 1 :]
                hole_start, options = levels[-1]
                end = next(options, None)
                if end is None:
                    levels.pop()
                    continue
                chosen.append((hole_start, end))
                position = end + len(literals[len(levels)])
                break
            else:
                return None

    def _ends(
        self,
        hole: int,
        literal: list[Line],
        text: Sequence[Line],
        bounds: tuple[int, int],
        index: dict[Line, list[int]],
        known: bool,
    ) -> Iterator[int]:
        """Where hole ``hole`` may end: after a candidate first, then anywhere ``literal`` fits.

        With ``known``, a hole ends only after a candidate (a free stretch anywhere).
        """
        start, limit = bounds

        def fits(end: int) -> bool:
            after = end + len(literal)
            return after <= limit and list(text[end:after]) == literal

        tried = set()
        for candidate in self.candidates[hole] if hole != _FREE_HOLE else ():
            end = start + len(candidate)
            if end not in tried and list(text[start:end]) == list(candidate) and fits(end):
                tried.add(end)
                yield end
        if known and hole != _FREE_HOLE:
            return
        if not literal:
            spots: Iterable[int] = range(start, limit + 1)
        else:
            at = index.get(literal[0], [])
            spots = at[bisect_left(at, start) : bisect_right(at, limit - len(literal))]
        for end in spots:
            if end not in tried and fits(end):
                yield end

    def _fills(self, hole: int, lines: Sequence[Line]) -> bool:
        """Whether ``lines`` may fill hole ``hole`` when every hole must be known."""
        return hole == _FREE_HOLE or self._choice(hole, lines) is not None

    def _loose(self, gap: _Gap) -> dict[int, Placement]:
        """The common lines around the hole changed: strip what survived of them."""
        literals, holes = self._literals(self.frame[gap.f0 : gap.f1])
        text = self.target[gap.t0 : gap.t1]
        if len(holes) > 1:
            return self._scattered(holes, text, gap.t0)
        prefix = common_prefix(text, literals[0])
        suffix = _common_suffix(text[prefix:], literals[-1])
        start, end = gap.t0 + prefix, gap.t0 + len(text) - suffix
        choice = self._choice(holes[0], text[prefix : len(text) - suffix])
        return {holes[0]: Placement(start, end, choice, False)}

    def _scattered(
        self, holes: list[int], text: Sequence[Line], offset: int
    ) -> dict[int, Placement]:
        """Several holes whose common runs between them are gone: no exact split exists.

        Each hole is looked for, in order, as one of its candidates; a hole not
        found that way is not located (it is put where the search stands).
        """
        placements: dict[int, Placement] = {}
        cursor = 0
        for hole in holes:
            found = self._find_candidate(hole, text, cursor)
            if found is None:
                placements[hole] = Placement(offset + cursor, offset + cursor, None, False, False)
            else:
                start, end, choice = found
                placements[hole] = Placement(offset + start, offset + end, choice, False)
                cursor = end
        return placements

    def _find_candidate(
        self, hole: int, text: Sequence[Line], cursor: int
    ) -> tuple[int, int, int] | None:
        """The earliest (start, end, choice) at or after ``cursor`` where a candidate reads."""
        best: tuple[int, int, int] | None = None
        for choice, candidate in enumerate(self.candidates[hole]):
            size = len(candidate)
            for start in range(cursor, len(text) - size + 1):
                if best is not None and start >= best[0]:
                    break
                if size and list(text[start : start + size]) == list(candidate):
                    best = (start, start + size, choice)
                    break
        return best

    def _choice(self, hole: int, lines: Sequence[Line]) -> int | None:
        """The index of the candidate of ``hole`` that ``lines`` equal, if any."""
        region = list(lines)
        for index, candidate in enumerate(self.candidates[hole]):
            if list(candidate) == region:
                return index
        return None


def _common_suffix(a: Sequence[Line], b: Sequence[Line]) -> int:
    """How many lines ``a`` and ``b`` end with in common."""
    count = 0
    for x, y in zip(reversed(a), reversed(b), strict=False):
        if x != y:
            break
        count += 1
    return count
