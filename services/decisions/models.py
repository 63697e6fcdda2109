"""The workspace state of one sync: what the maintainer decided, file by file, and where they were.

Pure data and pure functions (lazygit's ``mergeconflicts/state.go`` shape):
every helper returns a new :class:`SyncState` and the caller saves it at once
(:func:`syncdesk.services.decisions.store.save_state`). Resolved text is referred to by git blob
id (see :mod:`syncdesk.services.git.storage` for why), so states are small and cheap to copy.

A file is decided either as a whole (:class:`FileChoice`: dev's, main's, deleted,
edited) or hunk by hunk (:class:`HunkChoice`); an undecided hunk keeps the
resolution recorded at the head of the sync branch, the starting point the
maintainer reviews. Each decision pushes the file's previous
:class:`Decisions` on its undo stack, so undo and redo are per file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum

SCHEMA_VERSION = 1
UNDO_LIMIT = 100  # decisions remembered per file

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class FileStatus(StrEnum):
    """Where a conflicted file stands."""

    UNRESOLVED = "unresolved"
    RESOLVED = "resolved"
    APPROVED = "approved"


class Action(StrEnum):
    """How a hunk or a whole file was resolved."""

    DEV = "dev"
    MAIN = "main"
    UNION = "union"  # dev's lines, then main's
    UNION_MAIN_FIRST = "union-main-first"
    BASE = "base"
    EDITED = "edited"  # text written by hand, in the app or in $EDITOR
    DELETED = "deleted"  # whole file only


@dataclass(frozen=True, slots=True)
class HunkChoice:
    """The resolution chosen for one hunk."""

    index: int  # the hunk's position in its file, from 0
    action: Action
    blob: str  # the resolved lines, a git blob id
    key: str = ""  # the hunk's carry-over key when decided: a different key = a different hunk
    carried_from: str | None = None  # provenance of the carry-over suggestion taken, if any
    decided_at: str = ""


@dataclass(frozen=True, slots=True)
class FileChoice:
    """The resolution chosen for a whole file."""

    action: Action
    blob: str | None  # the file's content, a git blob id; None when deleted
    carried_from: str | None = None
    decided_at: str = ""


@dataclass(frozen=True, slots=True)
class Decisions:
    """Everything decided in one file: what undo steps back through."""

    status: FileStatus = FileStatus.UNRESOLVED
    hunks: tuple[HunkChoice, ...] = ()  # sorted by index, at most one per index
    whole_file: FileChoice | None = None

    def hunk(self, index: int) -> HunkChoice | None:
        """The choice for hunk ``index``, if one was made."""
        return next((choice for choice in self.hunks if choice.index == index), None)

    def blobs(self) -> set[str]:
        """The blob ids these decisions refer to."""
        found = {choice.blob for choice in self.hunks}
        if self.whole_file is not None and self.whole_file.blob is not None:
            found.add(self.whole_file.blob)
        return found


@dataclass(frozen=True, slots=True)
class FileState:
    """One conflicted file: its decisions and its undo and redo stacks (oldest first)."""

    path: str
    current: Decisions = Decisions()
    undo: tuple[Decisions, ...] = ()
    redo: tuple[Decisions, ...] = ()
    updated_at: str = ""


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the maintainer was: reopening resumes here."""

    path: str | None = None
    hunk: int = 0


@dataclass(frozen=True, slots=True)
class SyncKey:
    """Which sync a state belongs to: the merge's two parents.

    A rebuilt sync (a new dev base) gets a fresh state; the old one stays,
    for carry-over.
    """

    dev_base: str
    slice_tip: str

    def __post_init__(self) -> None:
        for sha in (self.dev_base, self.slice_tip):
            if _SHA.fullmatch(sha) is None:
                raise ValueError(f"not a full commit id: {sha!r}")

    @property
    def name(self) -> str:
        """``<dev_base>-<slice_tip>``: the state file's and pin ref's name."""
        return f"{self.dev_base}-{self.slice_tip}"


@dataclass(frozen=True, slots=True)
class SyncState:
    """The maintainer's work on one sync."""

    sync: SyncKey
    branch: str | None = None  # the sync branch's name, for people and for carry-over
    head: str | None = None  # the branch head the decisions were made against
    files: tuple[FileState, ...] = ()  # sorted by path
    cursor: Cursor = Cursor()
    created_at: str = ""
    updated_at: str = ""
    schema: int = SCHEMA_VERSION

    def file(self, path: str) -> FileState:
        """The state of ``path`` (empty, with nothing to undo, if nothing was decided there)."""
        return next((item for item in self.files if item.path == path), FileState(path))

    def decisions(self, path: str) -> Decisions:
        """The current decisions in ``path`` (none yet: unresolved, nothing chosen)."""
        return self.file(path).current

    def blobs(self) -> set[str]:
        """Every blob id the state refers to, undo and redo stacks included."""
        found: set[str] = set()
        for item in self.files:
            for decisions in (item.current, *item.undo, *item.redo):
                found |= decisions.blobs()
        return found


def now() -> str:
    """The current time as the states record it (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_state(
    sync: SyncKey, *, branch: str | None = None, head: str | None = None, at: str | None = None
) -> SyncState:
    """An empty state for ``sync``: nothing decided, the cursor at the start."""
    stamp = at or now()
    return SyncState(sync, branch, head, created_at=stamp, updated_at=stamp)


def choose_hunk(
    state: SyncState,
    path: str,
    choice: HunkChoice,
    *,
    status: FileStatus | None = None,
    at: str | None = None,
) -> SyncState:
    """Record ``choice`` for its hunk; a whole-file choice in ``path`` is dropped.

    ``status`` is the file's new status (the caller knows whether every hunk is
    now decided); by default it is kept, except that an approved file needs
    approving again once its content changes.
    """
    current = state.decisions(path)
    stamp = at or now()
    hunks = tuple(
        sorted(
            (*(c for c in current.hunks if c.index != choice.index), _stamped(choice, stamp)),
            key=lambda c: c.index,
        )
    )
    return _decide(state, path, Decisions(_status(current, status), hunks, None), stamp)


def clear_hunk(
    state: SyncState,
    path: str,
    index: int,
    *,
    status: FileStatus | None = None,
    at: str | None = None,
) -> SyncState:
    """Forget the choice for hunk ``index``: it falls back to the head's resolution."""
    current = state.decisions(path)
    hunks = tuple(c for c in current.hunks if c.index != index)
    updated = replace(current, status=_status(current, status), hunks=hunks)
    return _decide(state, path, updated, at or now())


def choose_file(
    state: SyncState,
    path: str,
    choice: FileChoice | None,
    *,
    status: FileStatus | None = None,
    at: str | None = None,
) -> SyncState:
    """Resolve ``path`` as a whole (hunk choices are dropped), or with None go back to hunks.

    By default a whole-file choice makes the file resolved.
    """
    current = state.decisions(path)
    stamp = at or now()
    if choice is None:
        updated = replace(current, status=_status(current, status), whole_file=None)
    else:
        default = FileStatus.RESOLVED if status is None else status
        updated = Decisions(default, (), replace(choice, decided_at=choice.decided_at or stamp))
    return _decide(state, path, updated, stamp)


def set_status(
    state: SyncState, path: str, status: FileStatus, *, at: str | None = None
) -> SyncState:
    """Mark ``path`` unresolved, resolved or approved (an undoable decision)."""
    current = state.decisions(path)
    return _decide(state, path, replace(current, status=status), at or now())


def undo(state: SyncState, path: str, *, at: str | None = None) -> SyncState:
    """Step ``path`` back one decision; unchanged if there is none to undo."""
    item = state.file(path)
    if not item.undo:
        return state
    stepped = FileState(path, item.undo[-1], item.undo[:-1], (*item.redo, item.current))
    return _put(state, stepped, at or now())


def redo(state: SyncState, path: str, *, at: str | None = None) -> SyncState:
    """Re-apply the decision last undone in ``path``; unchanged if there is none."""
    item = state.file(path)
    if not item.redo:
        return state
    stepped = FileState(path, item.redo[-1], (*item.undo, item.current), item.redo[:-1])
    return _put(state, stepped, at or now())


def move_cursor(
    state: SyncState, path: str | None, hunk: int, *, at: str | None = None
) -> SyncState:
    """Remember that the maintainer is on hunk ``hunk`` of ``path``."""
    return replace(state, cursor=Cursor(path, hunk), updated_at=at or now())


def _status(current: Decisions, requested: FileStatus | None) -> FileStatus:
    if requested is not None:
        return requested
    return FileStatus.RESOLVED if current.status is FileStatus.APPROVED else current.status


def _stamped(choice: HunkChoice, stamp: str) -> HunkChoice:
    return choice if choice.decided_at else replace(choice, decided_at=stamp)


def _decide(state: SyncState, path: str, updated: Decisions, stamp: str) -> SyncState:
    item = state.file(path)
    if _undated(updated) == _undated(item.current):
        return state  # choosing again what is already chosen is not a new step
    undo_stack = (*item.undo, item.current)[-UNDO_LIMIT:]
    return _put(state, FileState(path, updated, undo_stack, ()), stamp)


def _undated(decisions: Decisions) -> Decisions:
    whole = decisions.whole_file
    return replace(
        decisions,
        hunks=tuple(replace(choice, decided_at="") for choice in decisions.hunks),
        whole_file=None if whole is None else replace(whole, decided_at=""),
    )


def _put(state: SyncState, item: FileState, stamp: str) -> SyncState:
    stamped = replace(item, updated_at=stamp)
    others = (other for other in state.files if other.path != item.path)
    files = tuple(sorted((*others, stamped), key=lambda other: other.path))
    return replace(state, files=files, updated_at=stamp)
