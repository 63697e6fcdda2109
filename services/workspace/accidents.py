"""The audit's probable accidents as the conflict workspace tracks them.

The audit ran on the head of the sync branch; the maintainer's decisions
since may have put a lost dev line back (a restore, or a hunk re-decided to
include it). These pure functions tell which accidents the current result
still lacks, where they are, and what restoring them gives; the screen maps
``x`` and ``R`` to them. Telling which are missing aligns dev's lines with
the result (once per hunk, and once for the whole file), so the screen keeps
the answer in an :class:`AccidentCache` for as long as the file's result stays
the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from syncdesk.services.audit.lines import held_lines
from syncdesk.services.audit.model import Audit, LostLine
from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.workspace.layout import (
    Layout,
    restore_in_file,
    restored,
)

# Which hunk holds each dev line, for the last few conflict files asked about:
# id -> (the file, its table). The file is kept so that its id stays its own.
_HUNK_TABLES: dict[int, tuple[ConflictFile, dict[int, int]]] = {}
_TABLES_KEPT = 16


def hunk_index_of(conflict: ConflictFile, dev_line: int) -> int | None:
    """The index of the hunk whose dev side holds ``dev_line``; None outside every hunk.

    The first such hunk, as :func:`~syncdesk.services.workspace.layout.hunk_holding_dev_line`
    finds it, but from a table built once per file: the hunk info asks this for
    every accident on every hunk move.
    """
    known = _HUNK_TABLES.get(id(conflict))
    if known is None or known[0] is not conflict:
        table: dict[int, int] = {}
        for hunk in conflict.hunks:
            for line in range(hunk.dev_start, hunk.dev_start + len(hunk.dev)):
                table.setdefault(line, hunk.index)
        if len(_HUNK_TABLES) >= _TABLES_KEPT:
            _HUNK_TABLES.pop(next(iter(_HUNK_TABLES)))  # the oldest
        known = _HUNK_TABLES[id(conflict)] = (conflict, table)
    return known[1].get(dev_line)


def missing_accidents(
    findings: Iterable[LostLine],
    conflict: ConflictFile,
    current: Layout,
    dev_file: Sequence[str] | None,
) -> tuple[LostLine, ...]:
    """The probable accidents among ``findings`` (one file's) that ``current`` still lacks.

    An accident outside the hunks is checked against the whole result, which
    needs the dev base's file (``dev_file``); without it the accident counts
    as missing.
    """
    results = None if conflict.whole_file_only else current.results
    hunks = conflict.hunks
    accidents = [finding for finding in findings if finding.is_accident]
    # Per hunk (its dev lines against its result), and outside the hunks against the
    # whole result and the dev base's file: which accident lines are held again.
    by_place: dict[int | None, list[int]] = {}
    for finding in accidents:
        index = hunk_index_of(conflict, finding.line)
        place = index if index is not None and results is not None else None
        by_place.setdefault(place, []).append(finding.line)
    held: set[int] = set()
    for place, lines in by_place.items():
        if place is not None and results is not None:
            hunk = hunks[place]
            start = hunk.dev_start - 1  # hunk lines are counted from its first dev line
            inside = held_lines(hunk.dev, results[place], (line - start for line in lines))
            held |= {line + start for line in inside}
        elif dev_file is not None:
            held |= held_lines(dev_file, current.lines, lines)
    return tuple(finding for finding in accidents if finding.line not in held)


# What a file's missing accidents are worked out from: audit, file, result (hunks, gaps), dev file.
_Inputs = tuple[
    Audit, ConflictFile, list[tuple[str, ...]], list[tuple[str, ...]], Sequence[str] | None
]


class AccidentCache:
    """The accidents each file's result still lacks, worked out once per result.

    :func:`missing_accidents` aligns the file's dev lines with its result, which
    takes a while in a file with hundreds of accidents; a hunk move changes nothing
    it depends on. The answer is kept per file with what it was worked out from
    (the audit, the file, its current result and the dev base's file) and
    reused while all of them are the same: a decision that changes the result
    (a restore, a side taken, an undo) or a reload computes it afresh.
    """

    def __init__(self) -> None:
        self._known: dict[str, tuple[_Inputs, tuple[LostLine, ...]]] = {}

    def missing(
        self,
        audit: Audit,
        conflict: ConflictFile,
        current: Layout,
        dev_file: Sequence[str] | None,
    ) -> tuple[LostLine, ...]:
        """:func:`missing_accidents` of ``conflict``'s findings in ``audit``, cached.

        Two results with the same lines are the same result, whichever
        decisions made them; the comparison is by value, but a result built
        from the same line tuples as before (any hunk move) compares by
        identity, element by element, so it costs next to nothing.
        """
        inputs: _Inputs = (audit, conflict, current.results, current.gaps, dev_file)
        known = self._known.get(conflict.path)
        if known is not None and _same(known[0], inputs):
            return known[1]
        found = missing_accidents(audit.in_file(conflict.path), conflict, current, dev_file)
        self._known[conflict.path] = (inputs, found)
        return found

    def known(self, path: str) -> tuple[LostLine, ...] | None:
        """The missing accidents last worked out for ``path``; None if never asked."""
        known = self._known.get(path)
        return None if known is None else known[1]


def _same(known: _Inputs, inputs: _Inputs) -> bool:
    """Whether two sets of inputs are the same: the audit and file by identity, the rest equal."""
    return (
        known[0] is inputs[0]
        and known[1] is inputs[1]
        and known[2] == inputs[2]
        and known[3] == inputs[3]
        and known[4] == inputs[4]
    )


def next_accident_hunk(
    conflict: ConflictFile, accidents: Iterable[LostLine], after: int
) -> int | None:
    """The next hunk after ``after`` holding an accident, wrapping; None if no hunk holds one."""
    hunks = [hunk_index_of(conflict, f.line) for f in accidents]
    located = sorted({h for h in hunks if h is not None})
    if not located:
        return None
    return next((h for h in located if h > after), located[0])


def next_outside(
    conflict: ConflictFile, accidents: Iterable[LostLine], after: int
) -> tuple[int, LostLine] | None:
    """The accident outside every hunk that ``x`` reaches next from hunk ``after``, and the
    hunk nearest it (the view shows hunks): the first below that hunk's dev lines,
    wrapping; None when every accident is inside a hunk."""
    outside = sorted(outside_hunks(conflict, accidents), key=lambda finding: finding.line)
    if not outside or not conflict.hunks:
        return None
    current = conflict.hunks[min(after, len(conflict.hunks) - 1)]
    below = [f for f in outside if f.line >= current.dev_start + len(current.dev)]
    finding = (below or outside)[0]
    nearest = min(
        range(len(conflict.hunks)),
        key=lambda index: abs(conflict.hunks[index].dev_start - finding.line),
    )
    return nearest, finding


def restore_in_hunk(
    conflict: ConflictFile, index: int, current: tuple[str, ...], accidents: Iterable[LostLine]
) -> tuple[str, ...]:
    """Hunk ``index``'s result ``current`` with the accidents inside that hunk put back."""
    hunk = conflict.hunks[index]
    lines = current
    for finding in accidents:
        if hunk_index_of(conflict, finding.line) == index:
            lines = restored(hunk, lines, finding.line) or lines
    return lines


def outside_hunks(conflict: ConflictFile, accidents: Iterable[LostLine]) -> list[LostLine]:
    """The accidents on dev lines that no conflict hunk holds."""
    return [f for f in accidents if hunk_index_of(conflict, f.line) is None]


def restore_outside(
    dev_file: Sequence[str], result: tuple[str, ...], findings: Iterable[LostLine]
) -> tuple[str, ...]:
    """The whole ``result`` with the dev lines of ``findings`` (outside the hunks) put back."""
    lines = result
    for finding in findings:
        lines = restore_in_file(dev_file, lines, finding.line) or lines
    return lines
