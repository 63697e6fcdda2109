"""The JSON form of a :class:`SyncState` (schema 1), and its checked decoding.

The document, compact on disk::

    {"kind": "syncdesk-sync-state", "schema": 1,
     "sync": {"dev_base": SHA, "slice_tip": SHA}, "branch": str|null, "head": SHA|null,
     "created_at": ISO, "updated_at": ISO, "cursor": {"path": str|null, "hunk": int},
     "files": [{"path": str, "updated_at": ISO, "current": D, "undo": [D...], "redo": [D...]}]}

    D = {"status": "unresolved|resolved|approved",
         "hunks": [{"index": int, "action": str, "blob": SHA, "key": str,
                    "carried_from": str|null, "decided_at": ISO}],
         "whole_file": {"action": str, "blob": SHA|null, "carried_from": str|null,
                        "decided_at": ISO} | null}

A document from a newer schema is refused
(:class:`~syncdesk.services.git.atomic.NewerFormatError`), never moved aside or
overwritten: it belongs to a newer syncdesk.
"""

from __future__ import annotations

from typing import Any, TypeVar

from syncdesk.services.decisions.jsonshape import as_list, as_object, optional, required
from syncdesk.services.decisions.models import (
    SCHEMA_VERSION,
    Action,
    Cursor,
    Decisions,
    FileChoice,
    FileState,
    FileStatus,
    HunkChoice,
    SyncKey,
    SyncState,
)
from syncdesk.services.git.atomic import FormatError, NewerFormatError
from syncdesk.services.git.storage import is_oid

KIND = "syncdesk-sync-state"

E = TypeVar("E", Action, FileStatus)


def encode_state(state: SyncState) -> dict[str, Any]:
    """``state`` as a JSON-ready object."""
    return {
        "kind": KIND,
        "schema": state.schema,
        "sync": {"dev_base": state.sync.dev_base, "slice_tip": state.sync.slice_tip},
        "branch": state.branch,
        "head": state.head,
        "created_at": state.created_at,
        "updated_at": state.updated_at,
        "cursor": {"path": state.cursor.path, "hunk": state.cursor.hunk},
        "files": [encode_file(item) for item in state.files],
    }


def encode_file(item: FileState) -> dict[str, Any]:
    """One file's decisions and undo and redo stacks as a JSON-ready object."""
    return {
        "path": item.path,
        "updated_at": item.updated_at,
        "current": encode_decisions(item.current),
        "undo": [encode_decisions(d) for d in item.undo],
        "redo": [encode_decisions(d) for d in item.redo],
    }


def encode_decisions(decisions: Decisions) -> dict[str, Any]:
    """One file's decisions as a JSON-ready object."""
    whole = decisions.whole_file
    return {
        "status": decisions.status.value,
        "hunks": [
            {
                "index": c.index,
                "action": c.action.value,
                "blob": c.blob,
                "key": c.key,
                "carried_from": c.carried_from,
                "decided_at": c.decided_at,
            }
            for c in decisions.hunks
        ],
        "whole_file": None
        if whole is None
        else {
            "action": whole.action.value,
            "blob": whole.blob,
            "carried_from": whole.carried_from,
            "decided_at": whole.decided_at,
        },
    }


def decode_state(raw: Any) -> SyncState:
    """The :class:`SyncState` in parsed JSON; :class:`FormatError` on a wrong shape."""
    data = as_object(raw, "state")
    if data.get("kind") != KIND:
        raise FormatError("not a syncdesk sync state")
    schema = required(data, "schema", int)
    if schema > SCHEMA_VERSION:
        raise NewerFormatError(
            f"this sync's saved state has schema {schema}, newer than this syncdesk "
            f"understands ({SCHEMA_VERSION}): upgrade syncdesk to resume it"
        )
    sync = as_object(data.get("sync"), "sync")
    cursor = as_object(data.get("cursor"), "cursor")
    try:
        key = SyncKey(required(sync, "dev_base", str), required(sync, "slice_tip", str))
    except ValueError as error:
        raise FormatError(str(error)) from None
    return SyncState(
        sync=key,
        branch=optional(data, "branch", str),
        head=optional(data, "head", str),
        files=tuple(decode_file(f) for f in as_list(data.get("files"), "files")),
        cursor=Cursor(optional(cursor, "path", str), required(cursor, "hunk", int)),
        created_at=required(data, "created_at", str),
        updated_at=required(data, "updated_at", str),
        schema=SCHEMA_VERSION,
    )


def decode_file(raw: Any) -> FileState:
    """The :class:`FileState` in parsed JSON; :class:`FormatError` on a wrong shape."""
    data = as_object(raw, "file")
    return FileState(
        path=required(data, "path", str),
        current=decode_decisions(data.get("current")),
        undo=tuple(decode_decisions(d) for d in as_list(data.get("undo"), "undo")),
        redo=tuple(decode_decisions(d) for d in as_list(data.get("redo"), "redo")),
        updated_at=required(data, "updated_at", str),
    )


def decode_decisions(raw: Any) -> Decisions:
    """The :class:`Decisions` in parsed JSON; :class:`FormatError` on a wrong shape."""
    data = as_object(raw, "decisions")
    whole = data.get("whole_file")
    return Decisions(
        status=_enum(FileStatus, required(data, "status", str)),
        hunks=tuple(_decode_hunk(h) for h in as_list(data.get("hunks"), "hunks")),
        whole_file=None if whole is None else _decode_whole(whole),
    )


def _decode_hunk(raw: Any) -> HunkChoice:
    data = as_object(raw, "hunk")
    return HunkChoice(
        index=required(data, "index", int),
        action=_enum(Action, required(data, "action", str)),
        blob=_oid(required(data, "blob", str)),
        key=required(data, "key", str),
        carried_from=optional(data, "carried_from", str),
        decided_at=required(data, "decided_at", str),
    )


def _decode_whole(raw: Any) -> FileChoice:
    data = as_object(raw, "whole_file")
    blob = optional(data, "blob", str)
    return FileChoice(
        action=_enum(Action, required(data, "action", str)),
        blob=None if blob is None else _oid(blob),
        carried_from=optional(data, "carried_from", str),
        decided_at=required(data, "decided_at", str),
    )


def _enum(kind: type[E], value: str) -> E:
    try:
        return kind(value)
    except ValueError:
        raise FormatError(f"unknown {kind.__name__} {value!r}") from None


def _oid(value: str) -> str:
    if not is_oid(value):
        raise FormatError(f"not a blob id: {value!r}")
    return value
