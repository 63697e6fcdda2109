"""Where a sync's workspace state lives, and how it is loaded and saved without ever losing it.

One file per sync, ``<common git dir>/syncdesk/syncs/<dev_base>-<slice_tip>.json``
(:func:`syncdesk.services.git.storage.storage_dir`): per repository, shared by its worktrees,
keyed by the merge's parents so that a rebuilt sync starts a fresh state and
the previous one stays for carry-over.

Every decision is saved at once with :func:`syncdesk.services.git.atomic.write_atomic`; a
decision counts as saved only when :func:`save_state` has returned. Loading
is where damage is repaired and reported, never raised: temporary files of
killed writers are removed, a corrupt file is moved aside, and choices whose
resolved text is missing from git are dropped (the rest is kept) and named.

Two syncdesk processes may work on one sync (two terminals, two worktrees).
Saves are serialised by an ``flock`` beside the file, and each save merges
file by file with what is on disk: a file this process decided since its last
save or load takes this process's decisions, every other file keeps what the
other process saved. Only a file both changed is decided by the later save,
and the warning names it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from syncdesk.services.decisions.codec import decode_state, encode_state
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
    read_document,
    write_json,
)
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import existing_blobs, pin_blobs, storage_dir
from syncdesk.services.sanitize import one_line

STATES_DIRECTORY = "syncs"

# What this process last loaded or saved for each state file: the base of the
# file-by-file merge with another process's saves.
_bases: dict[Path, SyncState] = {}
_bases_lock = threading.Lock()


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


def states_dir(git: Git) -> Path:
    """The directory that holds the states of every sync of this repository."""
    return storage_dir(git) / STATES_DIRECTORY


def state_path(git: Git, sync: SyncKey) -> Path:
    """The file that holds the state of ``sync``."""
    return states_dir(git) / f"{sync.name}.json"


def pin_ref(sync: SyncKey) -> str:
    """The private ref that keeps the blobs of ``sync``'s state safe from ``git gc``."""
    return f"refs/syncdesk/syncs/{sync.name}"


def load_state(
    git: Git,
    sync: SyncKey,
    *,
    branch: str | None = None,
    head: str | None = None,
    remember: bool = True,
) -> LoadedState:
    """Resume the saved state of ``sync``, or start a fresh one (with ``branch`` and ``head``).

    Never fails on the file's content (see the module docstring); raises
    :class:`StorageError` only when the file cannot be read at all, or was
    written by a newer syncdesk. ``remember`` False is for readers that will
    not save (the writer's plan): the base of this process's next save merge
    stays what the workspace loaded.
    """
    path = state_path(git, sync)
    removed = clean_orphans(path.parent)
    document = read_document(path, lambda raw: _decode_for(sync, raw), "sync state")
    notes = [] if document.note is None else [document.note]
    state = document.value
    if state is None:
        fresh = new_state(sync, branch=branch, head=head)
        if remember:
            _remember(path, fresh)
        return LoadedState(fresh, path, False, document.moved_aside, (), len(removed), tuple(notes))
    on_disk = state
    missing = tuple(sorted(state.blobs() - existing_blobs(git, state.blobs())))
    if missing:
        state, dropped = drop_missing(state, frozenset(missing))
        notes.extend(dropped)
    with locked(_lock_path(path)):
        notes.extend(_pin(git, state, force=True))
    if remember:
        # The base is the file as it is on disk: choices dropped above (their
        # blobs are gone) then count as this process's change, and are saved.
        _remember(path, on_disk)
    return LoadedState(state, path, True, None, missing, len(removed), tuple(notes))


def _decode_for(sync: SyncKey, raw: Any) -> SyncState:
    state = decode_state(raw)
    if state.sync != sync:  # a file renamed or copied by hand: not this sync's decisions
        raise FormatError(f"it holds the state of another sync, {state.sync.name}")
    return state


def save_state(git: Git, state: SyncState) -> str | None:
    """Write ``state`` atomically and durably; the decision is saved when this returns.

    If another syncdesk process saved this sync since this one last loaded or
    saved it, the two are merged file by file (see the module docstring).
    Then the blobs are pinned against ``git gc``, under the same lock. Returns
    a one-line warning (a file both processes changed, a failed pin), or None.
    Raises :class:`StorageError` if the state could not be written.
    """
    path = state_path(git, state.sync)
    make_directory(path.parent)
    warnings: list[str] = []
    with locked(_lock_path(path)):
        with _bases_lock:
            base = _bases.get(path)
        merged = state
        if base is not None:
            disk = read_document(path, lambda raw: _decode_for(state.sync, raw), "sync state")
            if disk.value is not None and disk.value != base:
                merged, both = merge_states(base, state, disk.value)
                if both:
                    warnings.append(
                        one_line(
                            "another syncdesk also changed "
                            + ", ".join(both)
                            + " in this sync; this window's decisions were kept there"
                        )
                    )
        write_json(path, encode_state(merged))
        _remember(path, state)  # the next save's base is what this process holds
        warnings.extend(_pin(git, merged, force=False))
    return warnings[0] if warnings else None


def merge_states(
    base: SyncState, ours: SyncState, theirs: SyncState
) -> tuple[SyncState, list[str]]:
    """``theirs`` with every file ``ours`` changed since ``base``; and the files both changed."""
    paths = sorted({f.path for f in (*base.files, *ours.files, *theirs.files)})
    files: list[FileState] = []
    both: list[str] = []
    for path in paths:
        mine, before, other = ours.file(path), base.file(path), theirs.file(path)
        if mine != before:
            if other != before and other != mine:
                both.append(path)
            chosen = mine
        else:
            chosen = other
        if chosen != FileState(path):
            files.append(chosen)
    return replace(ours, files=tuple(files)), both


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _remember(path: Path, state: SyncState) -> None:
    with _bases_lock:
        _bases[path] = state


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
