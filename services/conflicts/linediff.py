"""Line matching between two versions of a file, fast on the near-identical files of a merge.

:func:`match_lines` is a patience diff (the one ``git diff --patience`` and
bzr use): lines that occur exactly once on both sides are anchors, the
longest run of anchors in the same order is kept, and the gaps between them
are matched the same way, recursively. Common prefixes and suffixes are
matched first. A gap with no unique line falls back to difflib on small
gaps only, so a 25,000-line file costs a few passes over its lines, never a
quadratic search.

Elements are any hashable values; a value equal to nothing else (a fresh
``object()``) is never matched, which is how a conflict hunk is held in place.
Such a stand-in may also name the lines it could hold (``hidden``): a line a
hunk may hold is then not unique in a stretch of ``a`` that holds the hunk,
so it is never an anchor there (see :func:`matching_blocks`).
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Collection, Hashable, Mapping, Sequence

# difflib is quadratic in the worst case: only gaps this small (lines x lines) go to it.
_DIFFLIB_LIMIT = 250_000


def matching_blocks(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    hidden: Mapping[int, Collection[Hashable]] | None = None,
) -> list[tuple[int, int, int]]:
    """Runs ``(i, j, n)`` with ``a[i:i+n] == b[j:j+n]``, in order, not overlapping.

    Together they form a long common subsequence; adjacent runs are merged.

    ``hidden`` maps positions of ``a`` that match nothing (a conflict hunk's
    hole) to the lines they may stand for. Within any stretch of ``a`` that
    holds such a position, those lines count as occurring there once more, so
    they are not unique and are never taken as anchors. Otherwise a copy of a
    hunk's lines elsewhere in ``a`` (a block main moved, while dev edited it in
    place and so made the conflict) would be anchored to the hunk's own lines
    in ``b``, pulling the alignment across the hole and leaving it empty.
    """
    holes = sorted(hidden) if hidden else []
    blocks: list[tuple[int, int, int]] = []

    def add(i: int, j: int, size: int) -> None:
        if size <= 0:
            return
        if blocks and blocks[-1][0] + blocks[-1][2] == i and blocks[-1][1] + blocks[-1][2] == j:
            i, j, size = blocks[-1][0], blocks[-1][1], blocks[-1][2] + size
            blocks.pop()
        blocks.append((i, j, size))

    # A stack of ranges to match and of runs already matched, popped left to right,
    # so that the runs come out in order.
    tasks: list[tuple[int, int, int, int]] = [(0, len(a), 0, len(b))]
    while tasks:
        a0, a1, b0, b1 = tasks.pop()
        if a1 < 0:  # a matched run: (i, -1, j, length)
            add(a0, b0, b1)
            continue
        same = _same_run(a, a0, b, b0, min(a1 - a0, b1 - b0))
        add(a0, b0, same)
        a0, b0 = a0 + same, b0 + same
        tail = _same_run_back(a, a1, b, b1, min(a1 - a0, b1 - b0))
        a1, b1 = a1 - tail, b1 - tail
        later = [(a1, -1, b1, tail)] if tail else []  # (the stack pops the end first)
        if a0 < a1 and b0 < b1:
            split = _split(a, a0, a1, b, b0, b1, _hidden_in(hidden, holes, a0, a1))
            if split is None:
                for i, j, size in _difflib_blocks(a, a0, a1, b, b0, b1):
                    add(i, j, size)
            else:
                later.extend(split)
        tasks.extend(later)
    return blocks


def match_lines(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` with ``a[i] == b[j]``, increasing in both (:func:`matching_blocks`)."""
    return [(i + k, j + k) for i, j, size in matching_blocks(a, b) for k in range(size)]


def _hidden_in(
    hidden: Mapping[int, Collection[Hashable]] | None, holes: list[int], a0: int, a1: int
) -> list[Collection[Hashable]]:
    """The hidden lines of the positions in ``a[a0:a1]``."""
    if hidden is None:
        return []
    return [hidden[holes[k]] for k in range(bisect_left(holes, a0), bisect_left(holes, a1))]


def _split(
    a: Sequence[Hashable],
    a0: int,
    a1: int,
    b: Sequence[Hashable],
    b0: int,
    b1: int,
    hidden: list[Collection[Hashable]],
) -> list[tuple[int, int, int, int]] | None:
    """Tasks for a range with different ends, last first; None when no line is unique."""
    anchors = _unique_anchors(a, a0, a1, b, b0, b1, hidden)
    if not anchors:
        return None
    tasks: list[tuple[int, int, int, int]] = []
    low_a, low_b = a0, b0
    for i, j in anchors:
        if i > low_a and j > low_b:  # lines left on both sides: match them too
            tasks.append((low_a, i, low_b, j))
        if tasks and i == low_a and j == low_b and tasks[-1][1] == -1:
            run_a, _, run_b, size = tasks.pop()  # extends the previous anchor's run
            tasks.append((run_a, -1, run_b, size + 1))
        else:
            tasks.append((i, -1, j, 1))
        low_a, low_b = i + 1, j + 1
    if a1 > low_a and b1 > low_b:
        tasks.append((low_a, a1, low_b, b1))
    tasks.reverse()
    return tasks


def _same_run(a: Sequence[Hashable], a0: int, b: Sequence[Hashable], b0: int, limit: int) -> int:
    """How many elements ``a[a0:]`` and ``b[b0:]`` share at their start (at most ``limit``).

    Slices are compared in growing chunks, so a long equal run costs a few C-level
    comparisons rather than one Python step per line.
    """
    same, step = 0, 8
    while same < limit:
        size = min(step, limit - same)
        if a[a0 + same : a0 + same + size] == b[b0 + same : b0 + same + size]:
            same, step = same + size, step * 2
        elif size == 1:
            break
        else:
            step = max(1, size // 2)
    return same


def _same_run_back(
    a: Sequence[Hashable], a1: int, b: Sequence[Hashable], b1: int, limit: int
) -> int:
    """How many elements ``a[:a1]`` and ``b[:b1]`` share at their end (at most ``limit``)."""
    same, step = 0, 8
    while same < limit:
        size = min(step, limit - same)
        if a[a1 - same - size : a1 - same] == b[b1 - same - size : b1 - same]:
            same, step = same + size, step * 2
        elif size == 1:
            break
        else:
            step = max(1, size // 2)
    return same


def _unique_anchors(
    a: Sequence[Hashable],
    a0: int,
    a1: int,
    b: Sequence[Hashable],
    b0: int,
    b1: int,
    hidden: list[Collection[Hashable]],
) -> list[tuple[int, int]]:
    """Lines unique in both ranges, reduced to their longest run in the same order.

    A line in ``hidden`` (held by a hole in ``a``'s range) is never unique in ``a``.
    """
    seen_a: dict[Hashable, int] = {line: -1 for lines in hidden for line in lines}
    for i in range(a0, a1):
        line = a[i]
        seen_a[line] = -1 if line in seen_a else i
    seen_b: dict[Hashable, int] = {}
    for j in range(b0, b1):
        line = b[j]
        if seen_a.get(line, -1) >= 0:
            seen_b[line] = -1 if line in seen_b else j
    candidates = [(seen_a[line], j) for line, j in seen_b.items() if j >= 0]  # unique in b and in a
    candidates.sort()
    return _longest_increasing(candidates)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by i) whose j also increases."""
    tails: list[int] = []  # tails[k]: the smallest j ending an increasing run of length k + 1
    tail_index: list[int] = []
    previous: list[int] = []
    for index, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[k] = j
            tail_index[k] = index
        previous.append(tail_index[k - 1] if k else -1)
    run: list[tuple[int, int]] = []
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        run.append(pairs[index])
        index = previous[index]
    run.reverse()
    return run


def _difflib_blocks(
    a: Sequence[Hashable], a0: int, a1: int, b: Sequence[Hashable], b0: int, b1: int
) -> list[tuple[int, int, int]]:
    if (a1 - a0) * (b1 - b0) > _DIFFLIB_LIMIT:
        return []  # too big to search: leave it unmatched
    matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
    return [(a0 + m.a, b0 + m.b, m.size) for m in matcher.get_matching_blocks() if m.size]
