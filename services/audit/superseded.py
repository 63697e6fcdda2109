"""Lines main's own change explains: *superseded by main*, and the lines amid such a change.

Rule 12 of the triage (the numbered list is in
:mod:`~syncdesk.services.audit.lost_lines`): a slice commit rewrote the code of a
lost dev line, line by line (:func:`superseding_change`), by renaming one of its
names (:func:`renamed_by_main`), or by rewriting the function holding it
(:func:`function_main_rewrote`); a comment excused by that rewrite stays an
accident when the code it introduces is one (:func:`comments_follow_their_code`).
Rule 14's last exception: a plain accident between two lines main removed or
rewrote went with that change (:func:`amid_mains_change`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from syncdesk.services.audit.classified import Classified, PlacedLine, finding
from syncdesk.services.audit.lines import is_blank, is_trivial
from syncdesk.services.audit.model import (
    AMID_REMOVED,
    AMID_REWRITTEN,
    Classification,
    LostLine,
)
from syncdesk.services.audit.names import definition_name, identifiers, shape, words
from syncdesk.services.audit.regions import base_span, superseding
from syncdesk.services.audit.sources import Region
from syncdesk.services.audit.sync_facts import SyncFacts, normal_form, with_hole
from syncdesk.services.sanitize import decode

# The most code lines a comment is taken to introduce.
_INTRODUCED = 12
# A code line main's rewrite of its function kept: this share of its words is still there.
_KEPT_WORDS = 0.75


def superseding_change(
    facts: SyncFacts,
    item: PlacedLine,
    dev_regions: dict[str, list[Region]],
    main_regions: dict[str, list[Region]],
) -> Region | None:
    """main's change at the place of ``item`` in the merge base's file that deleted that
    code or wrote a version of the line there (:func:`superseding`; the regions are what
    each side changed since the merge base)."""
    # A file dev left as in the base has no regions: its lines map as they are.
    span = base_span(dev_regions.get(item.path, ()), item.line)
    return superseding(
        span, main_regions.get(item.path, ()), partial(facts.has_a_version, item.raw)
    )


def rewritten_by_main(
    facts: SyncFacts,
    item: PlacedLine,
    region: Region,
    in_hunk: str | None,
    function: bytes | None,
) -> LostLine:
    """``item`` as *superseded by main* by ``region`` (naming its commit), or *taken as
    main* when it lies in a conflict hunk the resolution took as main (``in_hunk``, named
    instead of the ``function`` main rewrote, if any)."""
    sha, subject = facts.commit_of(item.path, region)
    kind = Classification.TAKEN_AS_MAIN if in_hunk else Classification.SUPERSEDED
    where = in_hunk or (f"{decode(function)}()" if function is not None else None)
    return finding(item, kind, commit=sha, subject=subject, detail=where)


def renamed_by_main(facts: SyncFacts, item: PlacedLine) -> LostLine | None:
    """``item`` as *superseded by main* when the result holds it with one name renamed the
    way main renamed it: ``old`` is gone from main's version of the file, ``new`` is a
    name main brought in (dev's file never had it). The commit is the slice commit that
    added the result's line, if one did.

    Not for a ``def`` or ``class`` line: a definition under a new name with
    another body is main's own, not dev's renamed (its body says which).
    """
    if item.raw.lstrip().startswith((b"def ", b"async def ", b"class ")):
        return None
    on_main = facts.names_in(facts.snapshot.main_side(item.path))
    candidates = sorted(identifiers(item.raw) - on_main)
    if not candidates:
        return None
    index = facts.renamings(item.path)
    form = normal_form(item.raw)
    for old in candidates:
        found = index.get(with_hole(form, old))
        if found is not None:
            new, number = found
            added = facts.changes.additions.get(item.path, {}).get(facts.result_line(item, number))
            return finding(
                item, Classification.SUPERSEDED,
                commit=added[0] if added else None, subject=added[1] if added else None,
                evidence_line=number, detail=f"renamed {decode(old)} to {decode(new)}",
            )  # fmt: skip
    return None


def function_main_rewrote(
    facts: SyncFacts, item: PlacedLine, main_regions: Sequence[Region]
) -> tuple[bytes, Region] | None:
    """The function holding ``item`` and main's change to it, when main rewrote that function
    in the slice, the result holds main's version, and ``item`` is prose (a comment, a
    docstring) or code whose words that version still holds (renamed locals, a new argument).

    The line-by-line test (:func:`superseding`) misses a rewrite that moved
    things around inside the function; this one looks at the whole body.
    """
    # A def line belongs to its own function here: main extended the signature.
    name = definition_name(item.raw) or facts.holder(item)
    if name is None or not main_regions:
        return None
    change = facts.snapshot.changed[item.path]
    if name not in facts.bodies(change.after):
        return None  # gone from this file: moved.moved_with_its_function asks elsewhere
    on_main = facts.owners(facts.snapshot.main_side(item.path))
    region = next((r for r in main_regions if _touches(r, on_main, name)), None)
    if region is None:
        return None
    if facts.is_prose(item):
        return name, region
    if normal_form(item.raw) in facts.function_forms(change.after, name):
        return None  # a copy dev had more of: the count is what was lost
    theirs = facts.function_words(change.after, name)
    dev_sha = change.before
    brought = facts.function_words(facts.snapshot.main_side(item.path), name) - (
        facts.function_words(dev_sha, name)
    )
    if kept_words(item.raw, theirs, brought):
        return name, region
    # The same statement with the function's own names renamed (a test main
    # brought upstream with new local names).
    mine = shape(item.raw, facts.function_locals(change.before, name))
    if mine is not None and mine in facts.function_shapes(change.after, name):
        return name, region
    return None


def kept_words(line: bytes, theirs: frozenset[bytes], brought: frozenset[bytes]) -> bool:
    """Whether a rewrite whose words are ``theirs`` kept ``line``: most of its words are
    there, and each missing one is a name the rewrite could have renamed it to (``brought``:
    names main's version brought in). A missing name with nothing to stand for it is
    dev's addition dropped (a term dropped from a sum)."""
    mine = words(line)
    missing = mine - theirs
    if not mine or len(mine) - len(missing) < _KEPT_WORDS * len(mine):
        return False
    names_brought = {word for word in brought if not word[:1].isdigit()}
    return all(not word[:1].isdigit() for word in missing) and len(missing) <= len(names_brought)


def _touches(region: Region, holders: Sequence[bytes | None], name: bytes) -> bool:
    """Whether main's ``region`` changed lines of function ``name`` (``holders``: main's file)."""
    if region.new_count == 0:  # a deletion after line new_start: look at both neighbours
        around = (region.new_start - 1, region.new_start)
        return any(0 <= at < len(holders) and holders[at] == name for at in around)
    span = range(region.new_start - 1, min(len(holders), region.new_start - 1 + region.new_count))
    return any(holders[at] == name for at in span)


def comments_follow_their_code(
    facts: SyncFacts, classified: Classified, comments: Sequence[LostLine]
) -> None:
    """A comment excused only because main rewrote its function (``comments``) is a
    *probable accident* after all when the code it introduces is one: a dev feature lost
    with its explanation.

    The code a comment introduces: the lines after it and its neighbouring
    comments, up to the next blank line or comment (at most
    :data:`_INTRODUCED` lines).
    """
    accidents = {(found.path, found.line) for found in classified if found.is_accident}
    for found in comments:
        dev = facts.snapshot.lines(facts.snapshot.changed[found.path].before)
        code = found.line  # 0-based index of the line after the comment
        while code < len(dev) and dev[code].lstrip().startswith(b"#"):
            code += 1
        end = code
        while (
            end < min(len(dev), code + _INTRODUCED)
            and not is_blank(dev[end])
            and not dev[end].lstrip().startswith(b"#")  # the next comment's code
        ):
            end += 1
        if any((found.path, line + 1) in accidents for line in range(code, end)):
            classified.reclassify(found, Classification.ACCIDENT)


def amid_mains_change(facts: SyncFacts, classified: Classified, first: int) -> None:
    """A plain accident between two lost lines main removed or rewrote went with that change.

    The nearest non-trivial dev lines above and below it are both lost, and a
    slice commit removed or rewrote each: main deleted or rewrote the code on
    both sides, and dev's version of the line between differed from main's old
    one (dev had edited it), so no rule matched it alone. On real syncs these
    were a reworded message in a validation block main deleted and a call in a
    test main rewrote (4 labelled blocks, all innocent). One pass over the
    classes the other rules gave (to the findings after the first ``first``): a
    run of two such lines stays accidents, and so do a still-referenced line
    and the lines of a dropped dev function.
    """
    mains = (Classification.REMOVED_ON_MAIN, Classification.SUPERSEDED)
    went: list[tuple[LostLine, Classification, LostLine, str]] = []
    for found in classified.since(first):
        if found.classification is not Classification.ACCIDENT or found.detail:
            continue
        dev = facts.snapshot.lines(facts.snapshot.changed[found.path].before)
        sides = [_nearest(dev, found.line, step) for step in (-1, 1)]
        around = [classified.at(found.path, line) for line in sides if line is not None]
        neighbours = [other for other in around if other is not None]
        if len(neighbours) < 2 or any(n.classification not in mains for n in neighbours):
            continue
        later = max(neighbours, key=lambda n: facts.changes.order.get(n.commit or "", -1))
        if all(n.classification is Classification.REMOVED_ON_MAIN for n in neighbours):
            went.append((found, Classification.REMOVED_ON_MAIN, later, AMID_REMOVED))
        else:
            went.append((found, Classification.SUPERSEDED, later, AMID_REWRITTEN))
    # After the pass: a line decided here is no one's neighbour.
    for found, kind, later, detail in went:
        classified.reclassify(
            found, kind, commit=later.commit, subject=later.subject, detail=detail
        )


def _nearest(dev: Sequence[bytes], line: int, step: int) -> int | None:
    """The nearest non-trivial line of ``dev`` before (``step`` -1) or after (+1) ``line``."""
    at = line + step
    while 1 <= at <= len(dev) and is_trivial(dev[at - 1]):
        at += step
    return at if 1 <= at <= len(dev) else None
