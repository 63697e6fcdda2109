"""Two desks on one sync: their decisions merged hunk by hunk, the way git merges lines.

Two syncdesk processes may work on one sync (two terminals, two worktrees,
two maintainers on one machine). Each knows the state it last read or wrote
(the *base*), what it holds now (*ours*) and what is on disk (*theirs*). A
three-way merge keeps both sides' work:

- a file only one side changed takes that side's state, undo stacks and all;
- in a file both changed, each hunk (and the whole-file choice, which stands
  for every hunk at once) takes the side that changed it;
- a hunk both changed, to different results, takes *ours* (the later save)
  and is named in :attr:`Merged.both`, so both desks can be told.

A merged file whose content came from both sides is not approved any more:
an approval covers the content the approver saw. Decision times are not
content: taking main on a hunk in both desks is one decision, not a clash.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from syncdesk.services.decisions.models import (
    UNDO_LIMIT,
    Decisions,
    FileChoice,
    FileState,
    FileStatus,
    HunkChoice,
    SyncState,
)


@dataclass(frozen=True, slots=True)
class Merged:
    """A merged state, and the places both sides changed (ours was kept there)."""

    state: SyncState
    both: tuple[str, ...] = ()  # "path hunk 2", "path (whole file)", "path (status)"


def merge_states(base: SyncState, ours: SyncState, theirs: SyncState) -> Merged:
    """``theirs`` with every decision ``ours`` made since ``base``; ours' cursor and header."""
    if theirs is base or theirs == base:
        return Merged(ours)
    mine_by, before_by, other_by = _by_path(ours), _by_path(base), _by_path(theirs)
    files: list[FileState] = []
    both: list[str] = []
    for path in sorted(mine_by.keys() | before_by.keys() | other_by.keys()):
        empty = FileState(path)
        mine = mine_by.get(path, empty)
        before = before_by.get(path, empty)
        other = other_by.get(path, empty)
        if mine == before:
            chosen = other
        elif other in (before, mine):
            chosen = mine
        else:
            chosen, places = merge_file(before, mine, other)
            both.extend(places)
        if chosen != empty:
            files.append(chosen)
    return Merged(replace(ours, files=tuple(files)), tuple(both))


def merge_file(before: FileState, mine: FileState, other: FileState) -> tuple[FileState, list[str]]:
    """One file both sides changed: merged per hunk; the places both changed (ours kept)."""
    path = mine.path
    base, ours, theirs = before.current, mine.current, other.current
    places: list[str] = []
    if _same(ours, base):
        current = theirs
    elif _same(theirs, base) or _same(ours, theirs):
        current = ours
    else:
        current = _merge_decisions(path, base, ours, theirs, places)
    if current == ours:
        return mine, places
    undo = (*mine.undo, mine.current)[-UNDO_LIMIT:]
    stamp = max(mine.updated_at, other.updated_at)
    return FileState(path, current, undo, (), stamp), places


def _merge_decisions(
    path: str, base: Decisions, ours: Decisions, theirs: Decisions, places: list[str]
) -> Decisions:
    content = _merge_content(path, base, ours, theirs, places)
    status = _merge_status(path, base, ours, theirs, places)
    if status is FileStatus.APPROVED:
        approved = [side for side in (ours, theirs) if side.status is FileStatus.APPROVED]
        if not any(_same_content(content, side) for side in approved):
            status = FileStatus.RESOLVED  # the approval was of other content
    return replace(content, status=status)


def _merge_content(
    path: str, base: Decisions, ours: Decisions, theirs: Decisions, places: list[str]
) -> Decisions:
    """The hunk and whole-file choices merged; the status is set by the caller."""
    if _same_content(ours, base):
        return theirs
    if _same_content(theirs, base) or _same_content(ours, theirs):
        return ours
    whole_ours = _undated_whole(ours.whole_file) != _undated_whole(base.whole_file)
    whole_theirs = _undated_whole(theirs.whole_file) != _undated_whole(base.whole_file)
    if whole_ours or whole_theirs:
        # A whole-file choice stands for every hunk: with the other side's
        # changes anywhere in the file, the two cannot both hold.
        places.append(f"{path} (whole file)")
        return ours
    hunks: list[HunkChoice] = []
    for index in sorted({c.index for c in (*base.hunks, *ours.hunks, *theirs.hunks)}):
        b, o, t = base.hunk(index), ours.hunk(index), theirs.hunk(index)
        if _undated_hunk(o) == _undated_hunk(b):
            chosen = t
        elif _undated_hunk(t) in (_undated_hunk(b), _undated_hunk(o)):
            chosen = o
        else:
            chosen = o
            places.append(f"{path} hunk {index + 1}")
        if chosen is not None:
            hunks.append(chosen)
    return replace(ours, hunks=tuple(hunks))


def _merge_status(
    path: str, base: Decisions, ours: Decisions, theirs: Decisions, places: list[str]
) -> FileStatus:
    if ours.status == base.status:
        return theirs.status
    if theirs.status not in (base.status, ours.status):
        places.append(f"{path} (status)")
    return ours.status


def changed_places(before: SyncState, after: SyncState) -> list[str]:
    """Where ``after`` decides differently from ``before``: "f.py hunk 2", "g.py (whole file)"."""
    places: list[str] = []
    old, new = _by_path(before), _by_path(after)
    for path in sorted(old.keys() | new.keys()):
        was = old.get(path, FileState(path)).current
        now = new.get(path, FileState(path)).current
        if was is now or _same(was, now):
            continue
        if _undated_whole(was.whole_file) != _undated_whole(now.whole_file):
            places.append(f"{path} (whole file)")
            continue
        indices = sorted({c.index for c in (*was.hunks, *now.hunks)})
        hunks = [i for i in indices if _undated_hunk(was.hunk(i)) != _undated_hunk(now.hunk(i))]
        places.extend(f"{path} hunk {index + 1}" for index in hunks)
        if not hunks:
            places.append(f"{path} ({now.status.value})")
    return places


def _by_path(state: SyncState) -> dict[str, FileState]:
    return {item.path: item for item in state.files}


def _same(one: Decisions, other: Decisions) -> bool:
    return one.status == other.status and _same_content(one, other)


def _same_content(one: Decisions, other: Decisions) -> bool:
    if one.hunks == other.hunks and one.whole_file == other.whole_file:
        return True
    return tuple(map(_undated_hunk, one.hunks)) == tuple(
        map(_undated_hunk, other.hunks)
    ) and _undated_whole(one.whole_file) == _undated_whole(other.whole_file)


def _undated_hunk(choice: HunkChoice | None) -> HunkChoice | None:
    return None if choice is None else replace(choice, decided_at="")


def _undated_whole(choice: FileChoice | None) -> FileChoice | None:
    return None if choice is None else replace(choice, decided_at="")
