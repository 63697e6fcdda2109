"""Lines the resolution of a conflict hunk dropped: *taken as main*, the resolution's decision.

Rules 12 and 13 of the triage (the numbered list is in
:mod:`~syncdesk.services.audit.lost_lines`): a line main superseded inside a conflict
hunk resolved as main's side is *taken as main* (12); a line such a hunk dropped
when main changed only code next to it is *taken as main* too, unless that hunk
also dropped a whole dev function (13, :func:`resolution_decisions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from syncdesk.services.audit.classified import Classified, PlacedLine
from syncdesk.services.audit.model import BESIDE, DROPPING, Classification, LostLine
from syncdesk.services.audit.sources import SliceChanges
from syncdesk.services.audit.sync_facts import SyncFacts
from syncdesk.services.conflicts.models import Hunk
from syncdesk.services.lines import encode_text
from syncdesk.services.sanitize import decode


def hunk_taken_as_main(facts: SyncFacts, item: PlacedLine) -> Hunk | None:
    """The conflict hunk the head resolved as main whose dev side holds ``item``, if any."""
    if facts.conflicts is None or facts.dev != facts.dev_base:
        return None  # hunk lines are numbered in the dev base's file
    conflict = facts.conflicts.file(item.path)
    if conflict is None:
        return None
    for hunk in conflict.hunks:
        on_dev_side = hunk.dev_start <= item.line < hunk.dev_start + len(hunk.dev)
        if hunk.resolution == "main" and on_dev_side:
            return hunk
    return None


def hunk_name(hunk: Hunk) -> str:
    """How a finding's detail names ``hunk``: "conflict hunk N" (1-based)."""
    return f"conflict hunk {hunk.index + 1}"


@dataclass
class HunksTakenAsMain:
    """What the line-by-line rules saw in the hunks taken as main, for rule 13."""

    # The accidents a hunk taken as main dropped next to main's change, with that hunk.
    beside: list[tuple[LostLine, Hunk]] = field(default_factory=list)
    # id() of a hunk taken as main -> a dev definition it dropped (the first seen).
    dropping: dict[int, bytes] = field(default_factory=dict)

    def dropped_beside(self, found: LostLine, hunk: Hunk) -> None:
        """``hunk`` dropped ``found`` (an accident) where main changed only code next to it."""
        self.beside.append((found, hunk))

    def dropped_definition(self, hunk: Hunk, definition: bytes) -> None:
        """``hunk`` dropped dev's whole function or class ``definition``."""
        self.dropping.setdefault(id(hunk), definition)


def resolution_decisions(facts: SyncFacts, classified: Classified, hunks: HunksTakenAsMain) -> None:
    """Rule 13: dev lines a hunk taken as main dropped next to main's change are *taken as
    main*, the resolution's decision.

    On four real Megatron-LM syncs every such line in a hunk that kept dev's
    definitions was innocent (main had re-implemented, restructured or
    re-signed that code with few words in common: 24 labelled blocks), and
    every true loss among them but one (a sentence of documentation main had
    reworded its own way) sat in a hunk that also dropped whole dev
    functions. So they are *taken as main* (shown, with main's commit), except
    in a hunk that dropped a dev definition, where they stay accidents: they
    are usually that definition's callers and arguments.
    """
    commits: dict[int, tuple[str | None, str | None]] = {}  # id(hunk) -> main's commit
    for found, hunk in hunks.beside:
        if id(hunk) in hunks.dropping:
            dropped = decode(hunks.dropping[id(hunk)])
            detail = f"{hunk_name(hunk)}{DROPPING}{dropped}"
            classified.reclassify(found, Classification.ACCIDENT, detail=detail)
            continue
        if id(hunk) not in commits:  # one look per hunk: a hunk may hold many such lines
            commits[id(hunk)] = _hunk_commit(facts.changes, found.path, hunk)
        sha, subject = commits[id(hunk)]
        classified.reclassify(
            found, Classification.TAKEN_AS_MAIN, commit=sha, subject=subject,
            detail=f"{hunk_name(hunk)}{BESIDE}",
        )  # fmt: skip


def _hunk_commit(changes: SliceChanges, path: str, hunk: Hunk) -> tuple[str | None, str | None]:
    """The last slice commit that wrote one of main's lines of ``hunk`` or removed a base line."""
    added = [encode_text(line.removesuffix("\n")) for line in hunk.main]
    removed = [encode_text(line.removesuffix("\n")) for line in hunk.base]
    return changes.last_commit(path, added, removed)
