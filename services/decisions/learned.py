"""What the carry-over store remembers, as data: learned resolutions and where they came from.

Pure: the de-duplicating, bounded merge (:func:`remember`) and the JSON codec.
The store itself (files, git, locking) is :mod:`syncdesk.services.decisions.carryover`.

The document, schema 1::

    {"kind": "syncdesk-carryover", "schema": 1,
     "hunks": {KEY: [E...]}, "files": {KEY: [E...]}}
    E = {"blob": SHA|null, "action": str|null,
         "provenance": [{"source": "approved|learned", "branch": str, "at": ISO}]}
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from syncdesk.services.decisions.jsonshape import as_list, as_object, optional, required
from syncdesk.services.decisions.models import Action, now
from syncdesk.services.git.atomic import FormatError, NewerFormatError
from syncdesk.services.git.storage import is_oid
from syncdesk.services.sanitize import one_line

KIND = "syncdesk-carryover"
SCHEMA_VERSION = 1
PROVENANCE_LIMIT = 4  # per learned resolution: the newest sources are enough to judge it

Table = dict[str, tuple["Suggestion", ...]]  # key -> learned resolutions, newest first


class Source(StrEnum):
    """How a resolution was learned."""

    APPROVED = "approved"  # the maintainer approved it in syncdesk
    LEARNED = "learned"  # read from an earlier sync branch (``syncdesk learn <ref>``)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where and when one resolution was seen."""

    source: Source
    branch: str  # the sync branch (or ref) it came from
    at: str  # ISO 8601, UTC

    def describe(self) -> str:
        """``approved in main2dev/demo on 2025-01-02`` or ``resolved this way in <branch>``."""
        branch = one_line(self.branch)
        if self.source is Source.APPROVED:
            return f"approved in {branch} on {self.at[:10]}"
        return f"resolved this way in {branch}"


def approved_in(branch: str, at: str | None = None) -> Provenance:
    """The maintainer approved the resolution in ``branch`` (now, by default)."""
    return Provenance(Source.APPROVED, branch, at or now())


def learned_from(branch: str, at: str | None = None) -> Provenance:
    """The resolution was found in the earlier sync branch ``branch``."""
    return Provenance(Source.LEARNED, branch, at or now())


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A resolution learned before, offered for the maintainer to approve (never applied)."""

    blob: str | None  # the resolved lines or file, a git blob id; None: the file was deleted
    action: Action | None  # how it was resolved, when known
    provenance: tuple[Provenance, ...]  # newest first, never empty

    @property
    def deleted(self) -> bool:
        """Whether the suggestion is to delete the file."""
        return self.blob is None

    @property
    def last_seen(self) -> str:
        """When this resolution was last learned or approved."""
        return self.provenance[0].at

    def describe(self) -> str:
        """The newest provenance, and how many others agree."""
        more = len(self.provenance) - 1
        first = self.provenance[0].describe()
        return first if more == 0 else f"{first} (and {more} more)"


def remember(
    entries: tuple[Suggestion, ...], learned: Suggestion, *, limit: int
) -> tuple[Suggestion, ...]:
    """``entries`` with ``learned`` first; the same resolution (blob) is kept once.

    Learning a resolution again merges the provenances (newest first, one per
    source and branch, at most :data:`PROVENANCE_LIMIT`) and moves it to the
    front; at most ``limit`` resolutions are kept per key, the newest.
    """
    same = next((entry for entry in entries if entry.blob == learned.blob), None)
    if same is not None:
        merged = _merge_provenance(learned.provenance, same.provenance)
        learned = Suggestion(learned.blob, learned.action or same.action, merged)
    others = tuple(entry for entry in entries if entry.blob != learned.blob)
    return (learned, *others)[:limit]


def _merge_provenance(
    new: tuple[Provenance, ...], old: tuple[Provenance, ...]
) -> tuple[Provenance, ...]:
    seen: set[tuple[Source, str]] = set()
    merged: list[Provenance] = []
    for item in sorted((*new, *old), key=lambda p: p.at, reverse=True):
        if (item.source, item.branch) not in seen:
            seen.add((item.source, item.branch))
            merged.append(item)
    return tuple(merged[:PROVENANCE_LIMIT])


def evict(table: Table, max_keys: int) -> Table:
    """``table`` cut to the ``max_keys`` keys used most recently."""
    if len(table) <= max_keys:
        return table
    newest = sorted(table, key=lambda key: table[key][0].last_seen, reverse=True)
    return {key: table[key] for key in newest[:max_keys]}


def encode_store(hunks: Table, files: Table) -> dict[str, Any]:
    """The store as a JSON-ready object."""
    return {
        "kind": KIND,
        "schema": SCHEMA_VERSION,
        "hunks": {key: [_encode(entry) for entry in entries] for key, entries in hunks.items()},
        "files": {key: [_encode(entry) for entry in entries] for key, entries in files.items()},
    }


def _encode(entry: Suggestion) -> dict[str, Any]:
    return {
        "blob": entry.blob,
        "action": None if entry.action is None else entry.action.value,
        "provenance": [
            {"source": p.source.value, "branch": p.branch, "at": p.at} for p in entry.provenance
        ],
    }


def decode_store(raw: Any) -> tuple[Table, Table]:
    """The hunk and file tables in parsed JSON; :class:`FormatError` on a wrong shape."""
    data = as_object(raw, "store")
    if data.get("kind") != KIND:
        raise FormatError("not a syncdesk carry-over store")
    schema = required(data, "schema", int)
    if schema > SCHEMA_VERSION:
        raise NewerFormatError(
            f"the carry-over store has schema {schema}, newer than this syncdesk "
            f"understands ({SCHEMA_VERSION}): upgrade syncdesk to use it"
        )
    return _decode_table(data.get("hunks"), "hunks"), _decode_table(data.get("files"), "files")


def _decode_table(raw: Any, where: str) -> Table:
    table: Table = {}
    for key, entries in as_object(raw, where).items():
        decoded = tuple(_decode(entry) for entry in as_list(entries, where))
        if decoded:
            table[key] = decoded
    return table


def _decode(raw: Any) -> Suggestion:
    data = as_object(raw, "resolution")
    blob = optional(data, "blob", str)
    if blob is not None and not is_oid(blob):
        raise FormatError(f"not a blob id: {blob!r}")
    action = optional(data, "action", str)
    provenance = tuple(_decode_provenance(p) for p in as_list(data.get("provenance"), "provenance"))
    if not provenance:
        raise FormatError("a resolution without provenance")
    try:
        return Suggestion(blob, None if action is None else Action(action), provenance)
    except ValueError as error:
        raise FormatError(str(error)) from None


def _decode_provenance(raw: Any) -> Provenance:
    data = as_object(raw, "provenance")
    try:
        source = Source(required(data, "source", str))
    except ValueError as error:
        raise FormatError(str(error)) from None
    return Provenance(source, required(data, "branch", str), required(data, "at", str))
