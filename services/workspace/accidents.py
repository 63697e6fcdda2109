"""The audit's probable accidents as the conflict workspace tracks them.

The audit ran on the head of the sync branch; the maintainer's decisions
since may have put a lost dev line back (a restore, or a hunk re-decided to
include it). These pure functions tell which accidents the current result
still lacks, where they are, and what restoring them gives; the screen maps
``x`` and ``R`` to them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from syncdesk.services.audit.lost_lines import Classification, LostLine
from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.workspace.layout import (
    Layout,
    hunk_holding_dev_line,
    restore_in_file,
    restored,
)


def hunk_index_of(conflict: ConflictFile, dev_line: int) -> int | None:
    """The index of the hunk whose dev side holds ``dev_line``; None outside every hunk."""
    hunk = hunk_holding_dev_line(conflict, dev_line)
    return None if hunk is None else hunk.index


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
    still = []
    for finding in findings:
        if finding.classification is not Classification.ACCIDENT:
            continue
        index = hunk_index_of(conflict, finding.line)
        back: tuple[str, ...] | None = ()
        if index is not None and results is not None:
            back = restored(conflict.hunks[index], results[index], finding.line)
        elif dev_file is not None:
            back = restore_in_file(dev_file, current.lines, finding.line)
        if back is not None:  # None: the result holds the line again
            still.append(finding)
    return tuple(still)


def next_accident_hunk(
    conflict: ConflictFile, accidents: Iterable[LostLine], after: int
) -> int | None:
    """The next hunk after ``after`` holding an accident, wrapping; None if no hunk holds one."""
    hunks = [hunk_index_of(conflict, f.line) for f in accidents]
    located = sorted({h for h in hunks if h is not None})
    if not located:
        return None
    return next((h for h in located if h > after), located[0])


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
