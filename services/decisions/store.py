"""Where a sync's workspace state lives, and how it is loaded and saved without ever losing it.

One state per sync, ``<common git dir>/syncdesk/syncs/<dev_base>-<slice_tip>.json``
(:func:`syncdesk.services.git.storage.storage_dir`): per repository, shared by its worktrees,
keyed by the merge's parents so that a rebuilt sync starts a fresh state and
the previous one stays for carry-over. The ``.json`` file is a snapshot; each
save appends one line to the ``.journal`` beside it and fsyncs it
(:mod:`~syncdesk.services.decisions.journal`), so a save costs what it
changed, not the size of the state, and a decision counts as saved when
:meth:`StateFile.save` has returned.

Loading is where damage is repaired and reported, never raised: temporary
files of killed writers are removed, a torn last journal line is cut off, a
corrupt file is moved aside, and choices whose resolved text is missing from
git are dropped (the rest is kept) and named.

Two syncdesk processes may work on one sync (two terminals, two worktrees).
Saves are serialised by an ``flock`` beside the file, and each save merges
with what is on disk hunk by hunk (:mod:`~syncdesk.services.decisions.merge`):
what another process decided since this one last read or wrote is kept, and
a hunk both changed keeps the later save's decision and is named, for both
desks to see (:meth:`StateFile.check` is how the other one finds out).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from syncdesk.services.decisions import journal
from syncdesk.services.decisions.codec import decode_state, encode_state
from syncdesk.services.decisions.merge import Merged, merge_states
from syncdesk.services.decisions.models import (
    Decisions,
    FileState,
    FileStatus,
    SyncKey,
    SyncState,
    new_state,
)
from syncdesk.services.git.atomic import (
    FormatError,
    StorageError,
    clean_orphans,
    locked,
    make_directory,
    quarantine,
    read_document,
    write_json,
)
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import existing_blobs, pin_blobs, storage_dir
from syncdesk.services.sanitize import one_line

STATES_DIRECTORY = "syncs"

# One handle per state file per process (see :func:`state_file`).
_handles: dict[Path, StateFile] = {}
_handles_lock = threading.Lock()

# A file's identity and content version, as lstat sees them: (inode, size, mtime).
_Status = tuple[int, int, int] | None


@dataclass(frozen=True, slots=True)
class LoadedState:
    """A state as loaded, with what had to be repaired on the way (for the user to read)."""

    state: SyncState
    path: Path
    resumed: bool = False  # a saved state was found (False: a fresh one)
    moved_aside: Path | None = None  # where a corrupt file went
    missing_blobs: tuple[str, ...] = ()  # resolved texts git no longer has; their choices dropped
    orphans_removed: int = 0  # temporary files of killed writers
    notes: tuple[str, ...] = ()  # one-line, sanitized messages


@dataclass(frozen=True, slots=True)
class Saved:
    """A save (or a look at the disk) done: what the caller had, and what the disk holds now.

    ``disk`` is ``base`` with what other desks decided merged in; a caller that
    went on deciding meanwhile rebases with ``merge_states(base, now, disk)``.
    """

    base: SyncState  # the state the caller saved, or last saved for a look
    disk: SyncState  # what is on disk now
    both: tuple[str, ...] = ()  # hunks both desks changed: this save's decision was kept there
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class _Disk:
    """What the snapshot and journal held when this process last read or wrote them."""

    state: SyncState | None  # None: nothing saved yet
    status: tuple[_Status, _Status]  # the snapshot's and the journal's
    generation: int
    snapshot_size: int
    journal_current: bool  # the journal exists and belongs to the snapshot
    good_size: int  # where the journal's last whole line ends (a torn tail is cut there)
    journal_size: int


_NOTHING_SAVED = _Disk(None, (None, None), 0, 0, False, 0, 0)


def states_dir(git: Git) -> Path:
    """The directory that holds the states of every sync of this repository."""
    return storage_dir(git) / STATES_DIRECTORY


def state_path(git: Git, sync: SyncKey) -> Path:
    """The snapshot file that holds the state of ``sync`` (its journal is beside it)."""
    return states_dir(git) / f"{sync.name}.json"


def pin_ref(sync: SyncKey) -> str:
    """The private ref that keeps the blobs of ``sync``'s state safe from ``git gc``."""
    return f"refs/syncdesk/syncs/{sync.name}"


class StateFile:
    """This process's handle on one sync's saved state: loads, saves, and looks for others' saves.

    It remembers what the caller last loaded or saved (the *base* of the merge
    with other desks) and what the disk held then, so a save whose disk has not
    changed since reads nothing. Thread-safe; every disk access is under the
    ``flock`` beside the snapshot.
    """

    def __init__(self, git: Git, sync: SyncKey) -> None:
        self.git = git
        self.sync = sync
        self.path = state_path(git, sync)
        self.journal = journal.journal_path(self.path)
        self._lock = threading.Lock()
        self._base: SyncState | None = None
        self._disk: _Disk | None = None

    # -- loading ----------------------------------------------------------------

    def load(
        self, *, branch: str | None = None, head: str | None = None, remember: bool = True
    ) -> LoadedState:
        """Resume the saved state, or start a fresh one (with ``branch`` and ``head``).

        Never fails on the files' content (see the module docstring); raises
        :class:`StorageError` only when they cannot be read at all, or were
        written by a newer syncdesk. ``remember`` False is for readers that will
        not save (the writer's plan): nothing is repaired on disk, and the base
        of this handle's next save stays what it was.
        """
        if not self.path.parent.is_dir():  # nothing was ever saved here: nothing to lock
            disk, moved, removed = _NOTHING_SAVED, None, []
            notes: list[str] = []
        else:
            removed = clean_orphans(self.path.parent)
            with locked(_lock_path(self.path)), self._lock:
                disk, notes, moved = self._read(repair=remember)
        if remember:
            with self._lock:
                self._disk = disk
        if disk.state is None:
            fresh = new_state(self.sync, branch=branch, head=head)
            if remember:
                with self._lock:
                    self._base = fresh
            return LoadedState(fresh, self.path, False, moved, (), len(removed), tuple(notes))
        state = on_disk = disk.state
        missing = tuple(sorted(state.blobs() - existing_blobs(self.git, state.blobs())))
        if missing:
            state, dropped = drop_missing(state, frozenset(missing))
            notes.extend(dropped)
        with locked(_lock_path(self.path)):
            notes.extend(_pin(self.git, state, force=True))
        if remember:
            # The base is the state as it is on disk: choices dropped above (their
            # blobs are gone) then count as this process's change, and are saved.
            with self._lock:
                self._base = on_disk
        return LoadedState(state, self.path, True, moved, missing, len(removed), tuple(notes))

    def _read(self, *, repair: bool) -> tuple[_Disk, list[str], Path | None]:
        """The snapshot with its journal replayed; with ``repair``, damage mended on disk."""
        notes: list[str] = []
        status = (_status(self.path), _status(self.journal))
        document = read_document(self.path, self._decode, "sync state")
        moved = document.moved_aside
        if document.note is not None:
            notes.append(document.note)
        if document.value is None:
            if moved is not None and status[1] is not None and repair:
                quarantine(self.journal)  # it extends a snapshot that is gone
            return _NOTHING_SAVED, notes, moved
        snapshot, generation = document.value
        replayed = journal.read_journal(self.journal, snapshot, generation)
        disk = _Disk(
            replayed.state,
            status,
            generation,
            status[0][1] if status[0] else 0,
            replayed.current,
            replayed.good_size,
            replayed.size,
        )
        if replayed.damage is not None:
            if repair:
                aside = quarantine(self.journal)
                disk = self._compact(replayed.state, generation)
                notes.append(one_line(
                    f"{replayed.damage}; what came before it is kept, the journal was moved "
                    f"aside to {aside.name}"
                ))  # fmt: skip
            else:
                notes.append(one_line(f"{replayed.damage}; what came before it is shown"))
        return disk, notes, moved

    def _decode(self, raw: Any) -> tuple[SyncState, int]:
        state = decode_state(raw)
        if state.sync != self.sync:  # a file renamed or copied by hand: not this sync's
            raise FormatError(f"it holds the state of another sync, {state.sync.name}")
        generation = raw.get("generation", 0) if isinstance(raw, dict) else 0
        if not isinstance(generation, int) or isinstance(generation, bool) or generation < 0:
            raise FormatError("'generation' must be a whole number")
        return state, generation

    # -- saving -------------------------------------------------------------------

    def save(self, state: SyncState) -> Saved:
        """Make ``state`` durable, merged with what other desks saved; saved when this returns.

        One journal line, fsynced. The blobs ``state`` names must already be in
        git. Raises :class:`StorageError` if it could not be written; nothing
        changes then, and the next save carries this one's decisions too.
        Call :meth:`settle` afterwards (it may take longer; nothing waits on it).
        """
        make_directory(self.path.parent)
        with locked(_lock_path(self.path)), self._lock:
            disk = self._disk
            if disk is None or disk.status != (_status(self.path), _status(self.journal)):
                disk = self._read(repair=True)[0]  # another process wrote: read it whole
            base = self._base if self._base is not None else disk.state
            merged = (
                Merged(state)
                if disk.state is None or base is None
                else merge_states(base, state, disk.state)
            )
            self._disk = self._write(disk, merged.state)
            self._base = state  # the next save's base is what the caller holds
        warning = None
        if merged.both:
            warning = one_line(
                "another syncdesk also decided " + ", ".join(merged.both)
                + " in this sync; this window's decisions were kept there"
            )  # fmt: skip
        return Saved(state, merged.state, merged.both, warning)

    def _write(self, disk: _Disk, state: SyncState) -> _Disk:
        if disk.state is None or not disk.journal_current:
            return self._compact(state, disk.generation)
        line = journal.entry_between(disk.state, state)
        if line is None:
            return disk
        cut = disk.good_size if disk.journal_size > disk.good_size else None
        appended = journal.append_line(self.journal, line, cut_at=cut)
        size = appended.st_size
        return replace(
            disk,
            state=state,
            status=(disk.status[0], _key(appended)),
            good_size=size,
            journal_size=size,
        )

    def settle(self) -> str | None:
        """After a save: pin its blobs against gc, and fold a long journal into the snapshot.

        Returns a one-line warning (a failed pin), or None. Nothing is lost if
        this never runs: the next load pins, and the next save compacts.
        """
        with locked(_lock_path(self.path)), self._lock:
            disk = self._disk
            if disk is None or disk.state is None:
                return None
            if disk.status != (_status(self.path), _status(self.journal)):
                return None  # another process wrote since: its own settle does this
            if self.compaction_due(disk.good_size, disk.snapshot_size):
                self._disk = self._compact(disk.state, disk.generation)
            warnings = _pin(self.git, disk.state, force=False)
        return warnings[0] if warnings else None

    def compaction_due(self, journal_size: int, snapshot_size: int) -> bool:
        """Whether the journal is worth folding into the snapshot now.

        Once it is larger than the snapshot (and than a floor): a compaction
        rewrites the snapshot, so its cost per save stays bounded by one line.
        """
        return journal_size > max(journal.COMPACT_AT_BYTES, snapshot_size)

    def _compact(self, state: SyncState, generation: int) -> _Disk:
        """Write ``state`` as the snapshot of the next generation, with an empty journal.

        The snapshot first: a kill between the two writes leaves a journal of
        the old generation, which the snapshot already holds and which is not
        replayed (see :mod:`~syncdesk.services.decisions.journal`).
        """
        after = generation + 1
        write_json(self.path, {**encode_state(state), "generation": after})
        started = journal.start_journal(self.journal, after)
        snapshot = _status(self.path)
        size = snapshot[1] if snapshot else 0
        return _Disk(state, (snapshot, _key(started)), after, size, True, started.st_size,
                     started.st_size)  # fmt: skip

    # -- other desks -----------------------------------------------------------------

    def check(self) -> Saved | None:
        """What another process saved since this one last read or wrote; None if nothing.

        Cheap when nothing changed (two ``lstat`` calls). The caller rebases
        what it holds with ``merge_states(saved.base, now, saved.disk)``.
        """
        with self._lock:
            disk, base = self._disk, self._base
        if disk is None or base is None:
            return None
        if disk.status == (_status(self.path), _status(self.journal)):
            return None
        with locked(_lock_path(self.path)), self._lock:
            disk = self._read(repair=True)[0]
            self._disk = disk
            base = self._base
        if disk.state is None or base is None:
            return None
        return Saved(base, disk.state)


def state_file(git: Git, sync: SyncKey) -> StateFile:
    """This process's handle on ``sync``'s state (one per state file)."""
    path = state_path(git, sync)
    with _handles_lock:
        handle = _handles.get(path)
        if handle is None:
            handle = _handles[path] = StateFile(git, sync)
        return handle


def load_state(
    git: Git,
    sync: SyncKey,
    *,
    branch: str | None = None,
    head: str | None = None,
    remember: bool = True,
) -> LoadedState:
    """Resume the saved state of ``sync``, or start a fresh one (see :meth:`StateFile.load`)."""
    handle = state_file(git, sync) if remember else StateFile(git, sync)
    return handle.load(branch=branch, head=head, remember=remember)


def save_state(git: Git, state: SyncState) -> str | None:
    """Save ``state`` durably and settle it; a one-line warning, or None.

    Raises :class:`StorageError` if the state could not be written.
    """
    handle = state_file(git, state.sync)
    saved = handle.save(state)
    settled = handle.settle()
    return saved.warning or settled


def _status(path: Path) -> _Status:
    return _key(journal.status_of(path))


def _key(status: os.stat_result | None) -> _Status:
    return None if status is None else (status.st_ino, status.st_size, status.st_mtime_ns)


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def list_states(git: Git) -> list[SyncKey]:
    """The syncs of this repository that have a saved state (for carry-over), by name."""
    keys: list[SyncKey] = []
    directory = states_dir(git)
    if not directory.is_dir():
        return keys
    for entry in sorted(directory.glob("*.json")):
        dev_base, _, slice_tip = entry.stem.partition("-")
        try:
            keys.append(SyncKey(dev_base, slice_tip))
        except ValueError:
            continue  # not one of ours
    return keys


def drop_missing(state: SyncState, missing: frozenset[str]) -> tuple[SyncState, list[str]]:
    """``state`` without the choices whose blob is in ``missing``, and a note per damaged file.

    A file that loses a current choice can no longer be resolved or approved
    as it was: it becomes unresolved, so the maintainer looks at it again.
    """
    files: list[FileState] = []
    notes: list[str] = []
    for item in state.files:
        current, lost = _without(item.current, missing)
        if lost:
            current = replace(current, status=FileStatus.UNRESOLVED)
            notes.append(
                f"{one_line(item.path)}: {lost} saved resolution(s) lost (their text is "
                "missing from the repository); the file is unresolved again"
            )
        undo = tuple(_without(d, missing)[0] for d in item.undo)
        redo = tuple(_without(d, missing)[0] for d in item.redo)
        files.append(replace(item, current=current, undo=undo, redo=redo))
    return replace(state, files=tuple(files)), notes


def _without(decisions: Decisions, missing: frozenset[str]) -> tuple[Decisions, int]:
    hunks = tuple(choice for choice in decisions.hunks if choice.blob not in missing)
    whole = decisions.whole_file
    whole_lost = whole is not None and whole.blob in missing
    lost = len(decisions.hunks) - len(hunks) + int(whole_lost)
    return replace(decisions, hunks=hunks, whole_file=None if whole_lost else whole), lost


def _pin(git: Git, state: SyncState, *, force: bool) -> list[str]:
    try:
        pin_blobs(git, pin_ref(state.sync), state.blobs(), force=force)
    except StorageError as error:
        return [error.message]
    return []
