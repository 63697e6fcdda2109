"""Results kept by commit: what a sync's immutable commits determine, computed once.

The conflict listing of a merge, the commits behind its hunks and the audit of
its result are pure functions of commit ids (and of the code that computes
them, git's version and a few settings): the same sync opened again gives the
same answers, so they are stored in the user's cache
(``$XDG_CACHE_HOME/syncdesk/results``) and read back. A second open of a real
sync then costs a file read instead of a merge, a blame and an audit.

An entry is one file, named by the digest of its key and written atomically
(:func:`~syncdesk.services.git.atomic.write_atomic`)::

    syncdesk-results 1\\n
    {"key": [...], "size": n, "sha256": "..."}\\n
    <n bytes: zlib of a pickle>

Nothing in it is trusted. The header's key must be the key asked for, word for
word (a digest collision or an entry copied from elsewhere is *foreign*), the
payload must have the size and digest the header gives (a torn or edited file
is *corrupt*), and the pickle is read by an unpickler that builds only
syncdesk's own data classes, never a function: a hostile file cannot run code.
An entry that fails any test is removed, the result computed again and stored
in its place, and one line says so (:attr:`ResultsCache.notes`). A cache that
cannot be written costs only speed: the result is returned all the same.

One computation per key at a time: a second asker of a result another thread is
computing (the workspace asking for the audit the Slice screen is reading ahead)
waits for it and shares its value instead of computing it again.

Entries carry no repository path: commit ids name the same content in every
clone. The directory is kept under :data:`LIMIT` bytes by removing the entries
read least recently (a hit touches its file).

Why not a library: diskcache (the obvious one) keeps values in SQLite and
unpickles them unrestricted; the entries here are few (a handful per sync) and
large, and the restricted, checked read is the part that matters.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import threading
import zlib
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, is_dataclass
from enum import Enum
from functools import cache
from pathlib import Path
from typing import TypeVar

import platformdirs

from syncdesk.services.git.atomic import (
    MAX_OWN_FILE,
    CorruptFileError,
    StorageError,
    make_directory,
    read_regular,
    write_atomic,
)
from syncdesk.services.sanitize import one_line

T = TypeVar("T")

MAGIC = b"syncdesk-results 1\n"
# The cache's bound: a large sync's entries are about 3 MB (13_08: conflicts 2.3 MB,
# audit 0.4 MB, attribution 23 KB, compressed), so this keeps some 80 syncs.
LIMIT = 256 * 1024 * 1024
# The only modules whose classes an entry may name (see _OwnClasses).
_OWN = "syncdesk.services."
_SUFFIX = ".result"


@dataclass
class _Flight:
    """A result being computed: its askers wait on ``done``; ``value`` is set on success."""

    done: threading.Event = field(default_factory=threading.Event)
    value: object = None
    ok: bool = False


class UnreadableEntry(Exception):
    """An entry that is not a result this code stored under this key (why, in words)."""


@dataclass
class ResultsCache:
    """The user's store of results kept by commit (see the module's docstring).

    Thread-safe: the report's workers ask it at once. ``notes`` holds the one line
    said for each entry found unreadable or a store that failed, for the caller to show.
    """

    directory: Path
    limit: int = LIMIT
    notes: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _flights: dict[Path, _Flight] = field(default_factory=dict, repr=False, compare=False)

    def kept(
        self,
        kind: str,
        key: Sequence[str],
        expected: type[T],
        compute: Callable[[], T],
        check: Callable[[], None] = lambda: None,
    ) -> T:
        """The result of ``compute`` for ``key``: read back if stored, else computed and stored.

        ``kind`` names the result in the notes ("the audit"); ``key`` is every input the
        result depends on (commit ids, settings), :func:`code_version` added here; the
        value read back must be an ``expected``. While another thread computes the same
        result this waits for it, calling ``check`` now and then (it raises to stop
        waiting: a cancelled worker), and computes it itself only if that one failed.
        """
        words = [code_version(), kind, *key]
        path = self.directory / (_digest(words) + _SUFFIX)
        with self._lock:
            flight = self._flights.get(path)
            leading = flight is None
            if flight is None:
                flight = self._flights[path] = _Flight()
        if not leading:
            while not flight.done.wait(0.05):
                check()
            if flight.ok and isinstance(flight.value, expected):
                return flight.value
            return self.kept(kind, key, expected, compute, check)  # that one failed: again
        try:
            value = self._read_or_compute(path, words, kind, expected, compute)
            flight.value, flight.ok = value, True
            return value
        finally:
            with self._lock:
                del self._flights[path]
            flight.done.set()

    def _read_or_compute(
        self, path: Path, words: list[str], kind: str, expected: type[T], compute: Callable[[], T]
    ) -> T:
        try:
            found = _read_entry(path, words)
        except UnreadableEntry as why:
            self._note(f"the kept {kind} was unreadable ({why}): computed again")
            _remove(path)
            found = None
        if isinstance(found, expected):
            _touch(path)
            return found
        if found is not None:
            self._note(f"the kept {kind} held something else: computed again")
            _remove(path)
        value = compute()
        self._store(path, words, value, kind)
        return value

    def _store(self, path: Path, words: list[str], value: object, kind: str) -> None:
        try:
            payload = zlib.compress(pickle.dumps(value, protocol=5), 1)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as error:
            self._note(f"the {kind} could not be kept in the results cache: {error}")
            return
        header = {"key": words, "size": len(payload), "sha256": _sha256(payload)}
        data = MAGIC + json.dumps(header, ensure_ascii=True).encode("ascii") + b"\n" + payload
        try:
            make_directory(self.directory)
            write_atomic(path, data)
        except StorageError as error:
            self._note(f"the results cache was not written: {error}")
            return
        self._bound()

    def _bound(self) -> None:
        """Remove the entries read least recently until the directory is under the limit."""
        with self._lock:
            entries: list[tuple[float, int, Path]] = []
            try:
                with os.scandir(self.directory) as listing:
                    for entry in listing:
                        if entry.name.endswith(_SUFFIX) and entry.is_file(follow_symlinks=False):
                            status = entry.stat(follow_symlinks=False)
                            entries.append((status.st_mtime, status.st_size, Path(entry.path)))
            except OSError:
                return
            total = sum(size for _, size, _ in entries)
            for _, size, path in sorted(entries):
                if total <= self.limit:
                    break
                _remove(path)
                total -= size

    def take_notes(self) -> list[str]:
        """The lines said since the last call (each said once), oldest first."""
        with self._lock:
            taken, self.notes = self.notes, []
        return taken

    def _note(self, line: str) -> None:
        with self._lock:
            self.notes.append(one_line(line))


_SHARED: dict[Path, ResultsCache] = {}
_SHARED_LOCK = threading.Lock()


def default_cache() -> ResultsCache:
    """The user's results cache (``$XDG_CACHE_HOME/syncdesk/results``, via platformdirs).

    One per directory in a process: every session the desk reopens shares it, so a
    result one screen is computing is waited for by the next, not computed twice.
    """
    directory = platformdirs.user_cache_path("syncdesk") / "results"
    with _SHARED_LOCK:
        found = _SHARED.get(directory)
        if found is None:
            found = _SHARED[directory] = ResultsCache(directory)
        return found


def _read_entry(path: Path, words: list[str]) -> object | None:
    """The value stored at ``path`` for ``words``; None if there is no entry."""
    try:
        data = read_regular(path, MAX_OWN_FILE)
    except CorruptFileError as error:  # a symlink, a FIFO, a file too large
        raise UnreadableEntry(str(error)) from None
    except StorageError:  # no directory to read, or no right to: the store says so next
        return None
    if data is None:
        return None
    if not data.startswith(MAGIC):
        raise UnreadableEntry("not an entry syncdesk wrote")
    end = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC) : end]) if end >= 0 else None
    except ValueError:
        header = None
    if not isinstance(header, dict):
        raise UnreadableEntry("its header is damaged")
    if header.get("key") != words:
        raise UnreadableEntry("it was stored for other commits")
    payload = data[end + 1 :]
    if header.get("size") != len(payload) or header.get("sha256") != _sha256(payload):
        raise UnreadableEntry("truncated or altered")
    try:
        value: object = _OwnClasses(io.BytesIO(zlib.decompress(payload))).load()
    except UnreadableEntry:
        raise
    except Exception as error:  # zlib.error, pickle.UnpicklingError, EOFError, ...
        raise UnreadableEntry(f"it does not decode: {type(error).__name__}") from None
    return value


class _OwnClasses(pickle.Unpickler):
    """An unpickler that builds syncdesk's data classes and enums, and nothing else.

    Python's documented guard ("Restricting Globals"): every class a pickle names
    goes through :meth:`find_class`, so a pickle calling ``os.system`` (or any
    function) is refused before anything runs. Containers, strings, bytes and
    numbers need no class.
    """

    def find_class(self, module: str, name: str) -> type:
        if module.startswith(_OWN) and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and _is_data(found):
                return found
        raise UnreadableEntry(f"it names {one_line(module)}.{one_line(name)}")


def _is_data(kind: type) -> bool:
    """Whether ``kind`` is a class that only holds data: a dataclass or an enum."""
    return is_dataclass(kind) or issubclass(kind, Enum)


@cache
def code_version() -> str:
    """A digest of the services' source: a result computed by other code is another key.

    Read once per process (some 200 files, a few milliseconds); an edit to any rule
    gives new keys, so a developer's cache never serves a result of the old rules.
    """
    root = Path(__file__).resolve().parent.parent  # services/
    digest = hashlib.sha256()
    for source in sorted(root.rglob("*.py")):
        digest.update(source.relative_to(root).as_posix().encode() + b"\0")
        digest.update(source.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def _digest(words: list[str]) -> str:
    return _sha256(json.dumps(words, ensure_ascii=True).encode("ascii"))[:40]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _touch(path: Path) -> None:
    # The bound removes what was read least recently: a hit renews its entry.
    with suppress(OSError):
        os.utime(path)


def _remove(path: Path) -> None:
    with suppress(OSError):
        path.unlink(missing_ok=True)
