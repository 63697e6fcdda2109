"""Lines main removed: *removed on main*, and why a line counts as main's deletion.

Rules 4, 9 and 14's stale copies of the triage (the numbered list is in
:mod:`~syncdesk.services.audit.lost_lines`): a slice commit removed that exact line
from that file (4, asked first: most lost lines); dev had only rewrapped a
statement of the merge base, and main removed that statement (9); main's own
history before the slice held and removed the line, which an earlier sync kept
on dev (14).
"""

from __future__ import annotations

from collections.abc import Sequence

from syncdesk.services.audit.classified import Classified, PlacedLine, finding
from syncdesk.services.audit.lines import is_trivial
from syncdesk.services.audit.model import Classification, LostLine
from syncdesk.services.audit.sources import Region, Removals
from syncdesk.services.audit.statements import is_python
from syncdesk.services.audit.sync_facts import SyncFacts


def removed_on_main(
    facts: SyncFacts, classified: Classified, items: list[PlacedLine]
) -> list[PlacedLine]:
    """Rule 4: classify the lines a slice commit removed (naming it); return the rest."""
    left: list[PlacedLine] = []
    for item in items:
        removed_by = facts.changes.removals.get(item.path, {}).get(item.raw)
        if removed_by is None:
            left.append(item)
            continue
        classified.add(
            finding(
                item, Classification.REMOVED_ON_MAIN, commit=removed_by[0], subject=removed_by[1]
            )
        )
    return left


def removed_as_dev_wrapped_it(
    facts: SyncFacts, item: PlacedLine, main_regions: Sequence[Region]
) -> LostLine | None:
    """Rule 9: ``item`` as *removed on main* (naming main's change) when main removed the
    statement holding it and dev had only rewrapped or reformatted that statement of the
    merge base (its key is the key of a statement main removed): base code main deleted,
    not dev's work."""
    if not main_regions or not is_python(item.path):
        return None
    key = facts.statement_key(facts.snapshot.changed[item.path].before, item.line - 1)
    if key is None or is_trivial(key):
        return None
    removal = facts.removed_statements(item.path, main_regions).get(key)
    if removal is None:
        return None
    sha, subject = facts.commit_of(item.path, removal)
    return finding(
        item, Classification.REMOVED_ON_MAIN, commit=sha, subject=subject,
        detail="dev had only rewrapped it",
    )  # fmt: skip


def stale_copies(classified: Classified, earlier: Removals, first: int) -> None:
    """Rule 14's first exception: the accidents (among the findings after the first
    ``first``) that main's own history held and removed before this slice (``earlier``,
    from :func:`~syncdesk.services.audit.sources.earlier_removals`) are *removed on main*.

    Such a line is a stale copy of main's older code that an earlier sync kept
    on dev, not dev's work.
    """
    for found in classified.since(first):
        removed_by = earlier.get(found.path, {}).get(found.raw)
        if found.is_accident and removed_by is not None:
            classified.reclassify(
                found, Classification.REMOVED_ON_MAIN, commit=removed_by[0], subject=removed_by[1]
            )
