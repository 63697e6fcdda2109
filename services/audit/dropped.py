"""Dev definitions the result dropped: the triage's two accidents found outright.

Rule 8, *still referenced*: a lost line defined a name that main never
mentions, the head's code still uses and the head's file no longer defines;
rule 11, *in a dropped definition*: the function or class holding a lost line
is gone by name from main and the result alike, and main did not move it into
another file. (The numbered rules are in :mod:`~syncdesk.services.audit.lost_lines`.)
"""

from __future__ import annotations

from syncdesk.services.audit.classified import PlacedLine, finding
from syncdesk.services.audit.model import Classification, LostLine
from syncdesk.services.audit.names import defined_names, imported_names
from syncdesk.services.audit.sync_facts import SyncFacts
from syncdesk.services.sanitize import decode


def still_referenced(facts: SyncFacts, item: PlacedLine) -> LostLine | None:
    """Rule 8: ``item`` as *still referenced* when it defined a name main never mentions,
    the result still uses (asked beforehand: :meth:`SyncFacts.look_for_uses`), and the
    result's version of the file no longer defines (an import merged into another import
    line, say, still binds it). The finding's detail is the name."""
    candidates = defined_names(item.raw, item.path) - facts.main_names()
    name = next((name for name in sorted(candidates) if facts.used(name)), None)
    if name is None:
        return None
    after = facts.snapshot.changed[item.path].after
    if facts.blob_defines(after, item.path, name):
        return None
    # An import binds a name in its own module only: uses elsewhere say nothing.
    if name in imported_names(item.raw) and name not in facts.names_in(after):
        return None
    return finding(item, Classification.STILL_REFERENCED, detail=decode(name))


def in_a_dropped_definition(facts: SyncFacts, item: PlacedLine) -> bytes | None:
    """Rule 11: the dev-only function or class holding ``item`` if the result lost it by
    name (see :func:`dropped_wholesale`)."""
    name = facts.holder(item)
    if name is None or name in facts.main_names() or facts.used(name):
        return None
    if facts.moved_to(item.path, name):
        return None  # main moved it into another file (under its name or another): not dropped
    return name


def dropped_wholesale(item: PlacedLine, definition: bytes) -> LostLine:
    """``item`` as a *probable accident* in dev's ``definition``, which the result dropped."""
    # The whole function or class the line belongs to is gone, under its
    # name, from main and the result alike: dev's work dropped wholesale.
    detail = f"dev's {decode(definition)}, which the result no longer has"
    return finding(item, Classification.ACCIDENT, detail=detail)
