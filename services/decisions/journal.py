"""The journal beside a sync's state file: one line per save, so a save costs what it changed.

A state is a snapshot, ``<name>.json`` (written whole with
:func:`~syncdesk.services.git.atomic.write_atomic`), plus a journal,
``<name>.journal``: JSON lines, ASCII::

    {"kind": "syncdesk-sync-journal", "generation": G}
    {"at": ISO, "head": SHA|null, "branch": str|null, "cursor": {...}, "ops": [OP...]}
    ...

    OP = {"op": "decide", "path": P, "at": ISO, "current": D}   a new decision (undo grows)
       | {"op": "undo", "path": P, "at": ISO} | {"op": "redo", "path": P, "at": ISO}
       | {"op": "file", "file": F}                                a file replaced whole
       | {"op": "drop", "path": P}                                a file forgotten

(D and F as in :mod:`~syncdesk.services.decisions.codec`.) A save appends one
line and fsyncs it: a few hundred bytes, whatever the size of the state. When
the journal outgrows the snapshot it is folded into a new snapshot of the
next *generation*; the snapshot names its generation, and a journal of
another generation is already in it (a kill between the two writes of a
compaction leaves exactly that), so it is not replayed twice.

A line is written with one ``write`` of the whole line, then fsynced; a save
is acknowledged only after that. A kill can leave at most a torn last line
(no newline): it was never acknowledged, is ignored, and is cut off before
the next append so the next line does not join it.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from syncdesk.services.decisions.codec import (
    decode_decisions,
    decode_file,
    encode_decisions,
    encode_file,
)
from syncdesk.services.decisions.jsonshape import as_list, as_object, optional, required
from syncdesk.services.decisions.models import UNDO_LIMIT, Cursor, FileState, SyncState
from syncdesk.services.errors import os_reason
from syncdesk.services.git.atomic import (
    MAX_OWN_FILE,
    CorruptFileError,
    FormatError,
    StorageError,
    read_regular,
    write_atomic,
)

KIND = "syncdesk-sync-journal"
# Fold the journal into the snapshot once it is this large and larger than the
# snapshot: each compaction rewrites the snapshot, so its cost per save stays
# bounded by the size of one save's line.
COMPACT_AT_BYTES = 256 * 1024

Op = dict[str, Any]


def journal_path(state_file: Path) -> Path:
    """The journal beside ``state_file`` (``<name>.json`` → ``<name>.journal``)."""
    return state_file.with_suffix(".journal")


# -- what a save appends --------------------------------------------------------------


def entry_between(old: SyncState, new: SyncState) -> bytes | None:
    """The journal line that turns ``old`` into ``new``; None when nothing changed."""
    if old == new:
        return None
    ops = ops_between(old, new)
    entry = {
        "at": new.updated_at,
        "head": new.head,
        "branch": new.branch,
        "cursor": {"path": new.cursor.path, "hunk": new.cursor.hunk},
        "ops": ops,
    }
    line = json.dumps(entry, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return line.encode("ascii") + b"\n"


def ops_between(old: SyncState, new: SyncState) -> list[Op]:
    """The operations that turn ``old``'s files into ``new``'s, each as small as it can be.

    A decision, an undo and a redo are recognised by the shape of the undo and
    redo stacks (:mod:`~syncdesk.services.decisions.models`), so the line holds
    only the new decisions; anything else (a merge with another desk) is the
    file whole. Checked by replaying: what is written always replays to ``new``.
    """
    before = {item.path: item for item in old.files}
    after = {item.path: item for item in new.files}
    ops: list[Op] = []
    for path, item in after.items():
        previous = before.get(path, FileState(path))
        if item is not previous and item != previous:
            ops.append(_op_for(previous, item))
    ops.extend({"op": "drop", "path": path} for path in before.keys() - after.keys())
    if _replay_files(old, ops) != new.files:
        ops = [{"op": "file", "file": encode_file(item)} for item in new.files]
        ops.extend({"op": "drop", "path": path} for path in before.keys() - after.keys())
    return ops


def _op_for(old: FileState, new: FileState) -> Op:
    path, at = new.path, new.updated_at
    if not new.redo and new.undo == (*old.undo, old.current)[-UNDO_LIMIT:]:
        return {"op": "decide", "path": path, "at": at, "current": encode_decisions(new.current)}
    if old.undo and (new.current, new.undo, new.redo) == (
        old.undo[-1], old.undo[:-1], (*old.redo, old.current)
    ):  # fmt: skip
        return {"op": "undo", "path": path, "at": at}
    if old.redo and (new.current, new.undo, new.redo) == (
        old.redo[-1], (*old.undo, old.current), old.redo[:-1]
    ):  # fmt: skip
        return {"op": "redo", "path": path, "at": at}
    return {"op": "file", "file": encode_file(new)}


# -- replaying ---------------------------------------------------------------------


def replay(state: SyncState, raw: Any) -> SyncState:
    """``state`` with one parsed journal entry applied; :class:`FormatError` on a wrong shape."""
    entry = as_object(raw, "journal entry")
    cursor = as_object(entry.get("cursor"), "cursor")
    ops = [as_object(op, "op") for op in as_list(entry.get("ops"), "ops")]
    return replace(
        state,
        head=optional(entry, "head", str),
        branch=optional(entry, "branch", str),
        cursor=Cursor(optional(cursor, "path", str), required(cursor, "hunk", int)),
        updated_at=required(entry, "at", str),
        files=_replay_files(state, ops),
    )


def _replay_files(state: SyncState, ops: list[Op]) -> tuple[FileState, ...]:
    files = {item.path: item for item in state.files}
    for op in ops:
        kind = required(op, "op", str)
        if kind == "file":
            item = decode_file(op.get("file"))
            files[item.path] = item
            continue
        path = required(op, "path", str)
        if kind == "drop":
            files.pop(path, None)
            continue
        old, at = files.get(path, FileState(path)), required(op, "at", str)
        if kind == "decide":
            current = decode_decisions(op.get("current"))
            undo = (*old.undo, old.current)[-UNDO_LIMIT:]
            files[path] = FileState(path, current, undo, (), at)
        elif kind == "undo" and old.undo:
            files[path] = FileState(path, old.undo[-1], old.undo[:-1], (*old.redo, old.current), at)
        elif kind == "redo" and old.redo:
            files[path] = FileState(path, old.redo[-1], (*old.undo, old.current), old.redo[:-1], at)
        else:
            raise FormatError(f"cannot replay {kind!r} on {path!r}")
    return tuple(files[path] for path in sorted(files))


@dataclass(frozen=True, slots=True)
class Replayed:
    """A snapshot with its journal replayed, and what the journal was like."""

    state: SyncState
    current: bool  # the journal exists and belongs to the snapshot's generation
    good_size: int  # bytes up to the end of the last line replayed (or the header)
    size: int  # the journal's size on disk
    damage: str | None = None  # why replay stopped before the end (a torn tail is not damage)


def read_journal(path: Path, snapshot: SyncState, generation: int) -> Replayed:
    """``snapshot`` with the journal at ``path`` replayed, never failing on its content.

    Raises :class:`StorageError` only when the journal cannot be read at all.
    """
    try:
        data = _read(path)
    except CorruptFileError as error:
        return Replayed(snapshot, False, 0, 0, error.message)
    if data is None:
        return Replayed(snapshot, False, 0, 0)
    header_end = data.find(b"\n")
    try:
        header = as_object(json.loads(data[:header_end]), "journal header")
        if header_end < 0 or header.get("kind") != KIND:
            raise FormatError("not a syncdesk journal")
        if required(header, "generation", int) != generation:
            return Replayed(snapshot, False, 0, len(data))  # folded into the snapshot already
    except (ValueError, FormatError) as error:
        return Replayed(snapshot, False, 0, len(data), f"{path} has no valid header ({error})")
    state, good = snapshot, header_end + 1
    while good < len(data):
        end = data.find(b"\n", good)
        if end < 0:
            break  # a torn last line: a killed writer's, never acknowledged
        try:
            state = replay(state, json.loads(data[good:end]))
        except (ValueError, RecursionError, FormatError) as error:
            where = "line " + str(data.count(b"\n", 0, good) + 1)
            return Replayed(state, True, good, len(data), f"{path} is damaged at {where} ({error})")
        good = end + 1
    return Replayed(state, True, good, len(data))


def _read(path: Path) -> bytes | None:
    return read_regular(path, MAX_OWN_FILE)


# -- writing -------------------------------------------------------------------------


def start_journal(path: Path, generation: int) -> os.stat_result:
    """Replace the journal at ``path`` with an empty one of ``generation``; its new status."""
    header = json.dumps({"kind": KIND, "generation": generation}, separators=(",", ":"))
    write_atomic(path, header.encode("ascii") + b"\n")
    return _status(path)


def append_line(path: Path, line: bytes, *, cut_at: int | None = None) -> os.stat_result:
    """Append ``line`` to the journal at ``path`` and make it durable; the journal's status.

    ``cut_at`` first truncates the file there (a torn tail a killed writer left).
    The line is one ``write``: a kill leaves it whole or torn, never interleaved.
    """
    try:
        # O_NOFOLLOW: the journal is ours; a symlink planted there is not written through.
        flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
        descriptor = os.open(path, flags)
    except OSError as error:
        raise StorageError(f"could not open {path}: {os_reason(error)}") from None
    try:
        if cut_at is not None:
            os.ftruncate(descriptor, cut_at)
        _write_all(descriptor, line)
        os.fsync(descriptor)
        return os.fstat(descriptor)
    except OSError as error:
        raise StorageError(f"could not save {path}: {os_reason(error)}") from None
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        if written <= 0:  # pragma: no cover - a regular file never returns 0
            raise OSError(errno.EIO, "nothing written")
        view = view[written:]


def status_of(path: Path) -> os.stat_result | None:
    """``path``'s status (not following a symlink), or None when there is no such file."""
    try:
        return path.lstat()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise StorageError(f"could not read {path}: {os_reason(error)}") from None


def _status(path: Path) -> os.stat_result:
    status = status_of(path)
    if status is None:
        raise StorageError(f"{path} vanished as it was written")
    return status
