"""The carry-over store: resolutions learned once, suggested again in later syncs.

rerere's idea, but per hunk: git rerere keys a whole file, so one new hunk
blocks the reuse of all the others, and it learns nothing from deleted files
(DOMAIN.md: 60% of hunks recur between consecutive syncs). Here a hunk key
(an opaque string from the conflict parser) maps to the resolutions learned
for it, and a file key to whole-file resolutions, including deletion.

The store only remembers and suggests; it never applies anything. It lives in
``<common git dir>/syncdesk/carryover.json`` (shared by all worktrees), is
written atomically after every change, keeps its resolved text as git blobs
pinned by ``refs/syncdesk/carryover``, and serialises writers from several
syncdesk processes with a lock (re-reading the file if another wrote it).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from syncdesk.services.decisions.learned import (
    Provenance,
    Suggestion,
    Table,
    decode_store,
    encode_store,
    evict,
    remember,
)
from syncdesk.services.decisions.models import Action
from syncdesk.services.git.atomic import (
    StorageError,
    clean_orphans,
    locked,
    make_directory,
    read_document,
    write_json,
)
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import (
    existing_blobs,
    is_oid,
    pin_blobs,
    read_blobs,
    storage_dir,
    write_lines,
)
from syncdesk.services.lines import bytes_to_lines

STORE_FILE = "carryover.json"
LOCK_FILE = "carryover.lock"
PIN_REF = "refs/syncdesk/carryover"
PER_KEY = 5  # resolutions kept per key
MAX_KEYS = 20_000  # per table; the keys seen least recently go first

_Signature = tuple[int, int, int] | None  # inode, size, mtime: "did someone else write it?"


class ResolutionStore:
    """The per-repository store of learned hunk and whole-file resolutions."""

    def __init__(self, git: Git, *, per_key: int = PER_KEY, max_keys: int = MAX_KEYS) -> None:
        """Open the store of ``git``'s repository (see :meth:`open`)."""
        self._git = git
        self._per_key = per_key
        self._max_keys = max_keys
        self.directory = storage_dir(git)
        self.path = self.directory / STORE_FILE
        self._hunks: Table = {}
        self._files: Table = {}
        self._signature: _Signature = None
        self._mutex = threading.RLock()
        self._depth = 0
        self.notes: list[str] = []  # one-line messages for the user: repairs, failed pins
        self.moved_aside: Path | None = None
        self.missing_blobs: tuple[str, ...] = ()
        self.orphans_removed = len(clean_orphans(self.directory))
        self._load()
        self._verify()

    @classmethod
    def open(cls, git: Git, *, per_key: int = PER_KEY, max_keys: int = MAX_KEYS) -> ResolutionStore:
        """Load the store and repair what a crash left; each repair is told in ``notes``.

        Orphan temporary files are removed, a corrupt file is moved aside, and
        entries whose text git lost are dropped (the others are kept).
        """
        return cls(git, per_key=per_key, max_keys=max_keys)

    # -- learning -----------------------------------------------------------------------

    def record_hunk(
        self,
        key: str,
        lines: Sequence[str],
        provenance: Provenance,
        *,
        action: Action | None = None,
    ) -> Suggestion:
        """Learn that hunk ``key`` was resolved as ``lines`` (each keeping its line ending)."""
        _check_key(key)
        blob = write_lines(self._git, lines)
        return self._record("hunks", key, Suggestion(blob, action, (provenance,)))

    def record_file(
        self,
        key: str,
        blob: str | None,
        provenance: Provenance,
        *,
        action: Action | None = None,
    ) -> Suggestion:
        """Learn that file ``key`` was resolved as blob ``blob`` (None: the file was deleted)."""
        _check_key(key)
        if blob is not None and not (is_oid(blob) and existing_blobs(self._git, [blob])):
            raise StorageError(f"cannot learn file resolution {blob[:12]}: no such blob")
        resolved = Action.DELETED if blob is None and action is None else action
        return self._record("files", key, Suggestion(blob, resolved, (provenance,)))

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Record many resolutions with one lock, one write and one pin (``syncdesk learn``)."""
        with self._transaction():
            yield

    # -- suggesting ---------------------------------------------------------------------

    def suggest_hunk(self, key: str) -> list[Suggestion]:
        """The resolutions learned for hunk ``key``, newest first (empty: none)."""
        with self._mutex:
            return list(self._hunks.get(key, ()))

    def suggest_hunks(self, keys: Iterable[str]) -> dict[str, list[Suggestion]]:
        """:meth:`suggest_hunk` for many keys; keys with no suggestion are left out."""
        with self._mutex:
            return {key: list(self._hunks[key]) for key in keys if key in self._hunks}

    def suggest_file(self, key: str) -> Suggestion | None:
        """The whole-file resolution learned most recently for file ``key``, if any."""
        with self._mutex:
            entries = self._files.get(key, ())
            return entries[0] if entries else None

    def lines(self, suggestion: Suggestion) -> list[str]:
        """The resolved lines of a suggestion (empty for a deletion)."""
        if suggestion.blob is None:
            return []
        return self.texts([suggestion.blob]).get(suggestion.blob, [])

    def texts(self, blobs: Iterable[str]) -> dict[str, list[str]]:
        """The lines of many suggestions' blobs, read with one git call."""
        return {oid: bytes_to_lines(data) for oid, data in read_blobs(self._git, blobs).items()}

    def counts(self) -> tuple[int, int]:
        """How many hunk keys and file keys the store knows."""
        with self._mutex:
            return len(self._hunks), len(self._files)

    # -- persistence --------------------------------------------------------------------

    def _record(self, kind: Literal["hunks", "files"], key: str, learned: Suggestion) -> Suggestion:
        with self._transaction():
            table = self._hunks if kind == "hunks" else self._files  # after any reload
            table[key] = remember(table.get(key, ()), learned, limit=self._per_key)
            entry = table[key][0]
            self._hunks = evict(self._hunks, self._max_keys)
            self._files = evict(self._files, self._max_keys)
            return entry

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._mutex:
            if self._depth:  # inside batch(): the outermost transaction saves
                yield
                return
            make_directory(self.directory)
            with locked(self.directory / LOCK_FILE):
                if _signature(self.path) != self._signature:
                    self._load()  # another syncdesk wrote it meanwhile
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                    self._save()

    def _load(self) -> None:
        document = read_document(self.path, decode_store, "carry-over store")
        if document.note is not None:
            self.notes.append(document.note)
            self.moved_aside = document.moved_aside
        if document.value is not None:  # else keep what is in memory (empty when opening)
            self._hunks, self._files = document.value
        self._signature = _signature(self.path)

    def _save(self) -> None:
        write_json(self.path, encode_store(self._hunks, self._files))
        self._signature = _signature(self.path)
        self._pin(force=False)

    def _verify(self) -> None:
        blobs = self._blobs()
        missing = blobs - existing_blobs(self._git, blobs)
        if missing:
            self.missing_blobs = tuple(sorted(missing))
            self._hunks = _without(self._hunks, missing)
            self._files = _without(self._files, missing)
            self.notes.append(
                f"carry-over: {len(missing)} learned resolution(s) dropped "
                "(their text is missing from the repository)"
            )
        self._pin(force=True)

    def _pin(self, *, force: bool) -> None:
        try:
            pin_blobs(self._git, PIN_REF, self._blobs(), force=force)
        except StorageError as error:
            self.notes.append(error.message)

    def _blobs(self) -> set[str]:
        return {
            entry.blob
            for table in (self._hunks, self._files)
            for entries in table.values()
            for entry in entries
            if entry.blob is not None
        }


def _check_key(key: str) -> None:
    if not key:
        raise ValueError("a carry-over key must not be empty")


def _without(table: Table, missing: set[str]) -> Table:
    kept: Table = {}
    for key, entries in table.items():
        remaining = tuple(entry for entry in entries if entry.blob not in missing)
        if remaining:
            kept[key] = remaining
    return kept


def _signature(path: Path) -> _Signature:
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns
