"""Review findings and where their cited lines come from: plain frozen dataclasses.

:mod:`syncdesk.services.review.parse` parses findings out of review bodies and inline
comments; :mod:`syncdesk.services.review.origin` blames every cited range and classifies each
line; dispositions (what the maintainer decided) are kept apart from both, by
finding id, so they carry across review rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from syncdesk.services.review.severity import Level, level_of


class Origin(StrEnum):
    """Where a line of the head comes from, relative to the sync."""

    SLICE = "slice"  # written by a main commit of the slice
    DEV = "dev"  # dev's: from the dev base or brought by a merge of dev, not from the slice tip
    SHARED = "shared"  # older than both: reachable from the dev base and the slice tip
    MERGE = "merge"  # introduced by the sync merge's conflict resolution
    REPAIR = "repair"  # introduced by a commit of ours on top of the merge (docs/ours.md)


class Disposition(StrEnum):
    """What the maintainer answers for a finding."""

    FIX_ON_MAIN = "fix-on-main"  # the code came with the slice: fix it on main
    FIX_HERE = "fix-here"  # ours: fix it in the repair commit
    FIX_ON_DEV = "fix-on-dev"  # dev's own code: fix it on dev
    CLOSED = "closed"  # already fixed, or not a defect
    UNDECIDED = "undecided"


@dataclass(frozen=True, slots=True)
class CitedRange:
    """Lines a finding points at: ``start``..``end`` (1-based, inclusive) of ``path``.

    ``commit`` is the commit the citation names (a blob link's SHA, an inline
    comment's ``commit_id``), None when unknown (taken as the head). ``side``
    "LEFT" cites the pull request's base, not the head. ``outdated`` marks an
    inline comment GitHub no longer anchors to the current diff (its lines are
    the original ones). ``source`` says where the citation was found:
    "link" (a blob URL ``#Lx-Ly``), "prose" (``path:12``, ``path`` ... "line 12",
    cited at the reviewed head) or "inline" (a review comment).
    """

    path: str
    start: int
    end: int
    commit: str | None = None
    side: str = "RIGHT"
    outdated: bool = False
    source: str = "link"


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of a review.

    ``id`` is the reviewer's own ("F7", "R7", "#7"), else generated ("R<review id>-<n>",
    "C<comment id>", "T<n>"). ``severity`` is the reviewer's word, upper case;
    :attr:`level` places it on the one scale of :mod:`syncdesk.services.review.severity`.
    ``status`` is a hint from the text: "unresolved" (an "unresolved prior F7"),
    "closed" ("that finding is closed", "F7 is addressed"), "superseded", or "".
    ``review_id`` / ``comment_ids`` say where it was found (the top-level
    inline comments that hold it, whose threads a reply goes to).
    """

    id: str
    severity: str  # "CRITICAL", "IMPORTANT", "NON-BLOCKING", "NIT", ... upper case; "" when none
    category: str  # "Correctness", "Implementation", ... ; "" when none
    title: str
    body: str
    ranges: tuple[CitedRange, ...] = ()
    status: str = ""
    review_id: int | None = None
    comment_ids: tuple[int, ...] = ()
    written: str = ""  # the id as the reviewer spelled it ("R01"), when it differs from ``id``

    @property
    def label(self) -> str:
        """The id as the reviewer wrote it (``R01``); ``id`` (``R1``) is what rounds match by."""
        return self.written or self.id

    @property
    def level(self) -> Level:
        """The severity on the one scale: ``critical`` ... ``nit``, or none."""
        return level_of(self.severity)


@dataclass(frozen=True, slots=True)
class OriginRun:
    """Consecutive lines of one cited range with the same blamed commit.

    ``by_merge``: the commit is one of our merges on top of the sync merge (a
    merge of dev), so the lines are its own resolution.
    """

    start: int
    end: int
    origin: Origin
    commit: str  # full SHA git blame gave
    subject: str
    author: str
    by_merge: bool = False


@dataclass(frozen=True, slots=True)
class RangeOrigin:
    """The blame origin of one cited range, at the head.

    ``start``/``end`` are the lines at the head that were blamed (the cited
    lines mapped from the cited commit, clipped at the end of the file);
    ``note`` explains anything that could not be classified ("the file does
    not exist at the head", "lines 90-99 are past the end of the file",
    "the cited lines were changed since <sha>").
    ``file_identical_to``: "main" (the head's file equals the main tip's),
    "dev" (equals the dev base's), "both", or "" (neither, or no file).
    """

    range: CitedRange
    start: int
    end: int
    counts: dict[Origin, int]
    runs: tuple[OriginRun, ...]
    file_identical_to: str
    note: str = ""
