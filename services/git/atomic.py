"""Crash-safe files: a write either happened whole or not at all, even under ``kill -9``.

A naive writer (``open('w')`` then writes) left an unparseable file in 2% of
random SIGKILLs in our experiment (``research/reliability.md`` E7); this
protocol left none: write a temporary file in the same directory, flush,
``fsync`` it, ``os.replace`` it over the target (atomic on POSIX), then
``fsync`` the directory so the rename itself survives a power loss (the
missing fsync that corrupted GitLab's loose refs).

A killed writer leaves its temporary file behind (about one per kill, E8).
Temporary files are named ``.<name>.syncdesk-tmp-<pid>-<random>`` so that
:func:`clean_orphans` can recognise ours and tell a dead writer's from a live
one's. A file that cannot be parsed is never fatal: it is moved aside as
``<name>.corrupt-<timestamp>`` and reported (:func:`read_document`).

No git and no UI here: plain files only.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

from syncdesk.services.errors import ServiceError, os_reason
from syncdesk.services.sanitize import one_line

T = TypeVar("T")

TEMP_MARK = ".syncdesk-tmp-"
# A save takes milliseconds: an hour-old temporary file is an orphan even if
# its pid has since been reused by another live process.
ORPHAN_AGE_SECONDS = 3600.0

# A temporary file, or the ``.lock`` git left beside one (a temporary index being written).
_TEMP_NAME = re.compile(
    r"\.(?P<name>.+)\.syncdesk-tmp-(?P<pid>\d+)-(?P<token>[0-9a-f]{16})(?:\.lock)?"
)


class StorageError(ServiceError):
    """A file of syncdesk's own could not be written or read."""

    title = "Could not save"


class CorruptFileError(StorageError):
    """A file exists but is not what syncdesk wrote (truncated, edited, not JSON)."""

    title = "Corrupt file"


class NewerFormatError(StorageError):
    """A file written by a newer syncdesk: refused, and never moved aside or overwritten."""

    title = "Written by a newer syncdesk"


class FormatError(ValueError):
    """Parsed JSON whose shape is not the expected document (raised by decoders)."""


@dataclass(frozen=True, slots=True)
class Document(Generic[T]):
    """A decoded JSON document, or why there is none."""

    value: T | None  # None: no file, or it was corrupt and moved aside
    moved_aside: Path | None = None
    note: str | None = None  # the user-facing account of a corrupt file


def temp_name(name: str) -> str:
    """The name of a temporary file for ``name``, recognisable by :func:`clean_orphans`."""
    return f".{name}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(8)}"


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file, whole.

    When this returns, the new content is on disk (file and directory entry
    fsynced). Raises :class:`StorageError` naming the file on failure; the
    temporary file is removed then (a kill leaves it for :func:`clean_orphans`).
    """
    temp = path.with_name(temp_name(path.name))
    try:
        _write_synced(temp, data)
        os.replace(temp, path)
    except OSError as error:
        _discard(temp)
        raise StorageError(f"could not save {path}: {_reason(error)}") from None
    except BaseException:
        _discard(temp)
        raise
    fsync_directory(path.parent)


def _discard(temp: Path) -> None:
    # Not created (no directory) or not removable: a leftover is clean_orphans' job.
    with suppress(OSError):
        temp.unlink(missing_ok=True)


def _write_synced(temp: Path, data: bytes) -> None:
    # O_EXCL: never write through a file (or a symlink) someone else put there.
    descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    with open(descriptor, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def fsync_directory(directory: Path) -> None:
    """Make the entries of ``directory`` (a rename, a new file) durable."""
    try:
        descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise StorageError(f"could not open {directory}: {_reason(error)}") from None
    try:
        os.fsync(descriptor)
    except OSError as error:
        # Some file systems cannot fsync a directory; the rename is still atomic there.
        if error.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise StorageError(f"could not sync {directory}: {_reason(error)}") from None
    finally:
        os.close(descriptor)


def make_directory(directory: Path) -> None:
    """Create ``directory`` and its missing parents, each new entry made durable."""
    missing = [parent for parent in (directory, *directory.parents) if not parent.exists()]
    for new in reversed(missing):
        try:
            new.mkdir(exist_ok=True)
        except OSError as error:
            raise StorageError(f"could not create {new}: {_reason(error)}") from None
        fsync_directory(new.parent)


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as compact JSON with :func:`write_atomic` (ASCII: any string survives)."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    write_atomic(path, text.encode("ascii") + b"\n")


# The largest file of syncdesk's own it reads: a real sync's state is a few MB.
MAX_OWN_FILE = 64 * 1024 * 1024


def read_regular(path: Path, limit: int, *, follow: bool = False) -> bytes | None:
    """The bytes of the regular file ``path`` (None if there is none), at most ``limit``.

    Opened without blocking (a FIFO would hang the reader) and, unless
    ``follow``, without following a symlink (a state file pointing at
    ``/dev/zero`` grew the desk to 2 GB): what is not a regular file, or is
    larger than ``limit``, is :class:`CorruptFileError`; what cannot be opened
    is :class:`StorageError`.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise CorruptFileError(
                f"{path} is a symbolic link, not a file syncdesk wrote"
            ) from None
        raise StorageError(f"could not read {path}: {_reason(error)}") from None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
        os.close(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise CorruptFileError(f"{path} is not a regular file")
        raise CorruptFileError(f"{path} is larger than {limit // (1024 * 1024)} MB")
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise StorageError(f"could not read {path}: {_reason(error)}") from None
    if len(data) > limit:  # it grew while being read
        raise CorruptFileError(f"{path} is larger than {limit // (1024 * 1024)} MB")
    return data


def read_json(path: Path) -> Any | None:
    """The JSON value in ``path``, or None if there is no such file.

    Raises :class:`CorruptFileError` if the file is not valid UTF-8 JSON (empty,
    truncated, edited) or not a regular file of a sane size (see
    :func:`read_regular`), and :class:`StorageError` if it cannot be read at all
    (permissions): only the first is a reason to move the file aside.
    """
    data = read_regular(path, MAX_OWN_FILE)
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CorruptFileError(f"{path} is not valid JSON ({error})") from None
    except RecursionError:
        # A document nested deeper than Python's parser recurses (say 100,000
        # "[" in a row): no file of ours is, so it is corrupt like any other.
        raise CorruptFileError(f"{path} is not valid JSON (nested too deeply)") from None


def quarantine(path: Path) -> Path:
    """Move a corrupt ``path`` aside as ``<name>.corrupt-<timestamp>`` and return the new path.

    The file is kept, never deleted: it may still hold decisions a person can read.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    attempt = 0
    while target.exists():
        attempt += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{attempt}")
    try:
        os.rename(path, target)
    except OSError as error:
        raise StorageError(f"could not move corrupt {path} aside: {_reason(error)}") from None
    fsync_directory(path.parent)
    return target


def read_document(path: Path, decode: Callable[[Any], T], what: str) -> Document[T]:
    """Read and decode the JSON document in ``path``, never failing on its content.

    ``decode`` turns parsed JSON into a model and raises :class:`FormatError` on
    a wrong shape. A file that is not JSON, or not the expected shape, is moved
    aside and reported in the result's ``note``; the caller starts afresh.
    Unreadable files (:class:`StorageError`) and the decoder's other errors (a
    newer schema, bugs) propagate, so a good file is never moved aside by mistake.
    """
    try:
        raw = read_json(path)
        return Document(None if raw is None else decode(raw))
    except CorruptFileError as error:
        reason = error.message
    except FormatError as error:
        reason = f"{path} is not a valid {what} ({error})"
    moved = quarantine(path)
    note = one_line(f"{reason}; moved aside to {moved.name} and started afresh")
    return Document(None, moved, note)


def clean_orphans(directory: Path, *, max_age: float = ORPHAN_AGE_SECONDS) -> list[Path]:
    """Remove the temporary files that killed writers left in ``directory``; return them.

    Only our own temporary files are touched (:func:`temp_name`, and the ``.lock``
    git leaves beside a temporary index), and only those
    whose writer is gone: its pid is not running, or the file is older than
    ``max_age`` seconds (the pid was reused). A live writer's file is kept.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return removed
    except OSError as error:
        raise StorageError(f"could not list {directory}: {_reason(error)}") from None
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False):
            continue
        if _is_orphan(entry, int(match["pid"]), max_age):
            Path(entry.path).unlink(missing_ok=True)  # another cleaner may have raced us
            removed.append(Path(entry.path))
    return removed


def _is_orphan(entry: os.DirEntry[str], pid: int, max_age: float) -> bool:
    try:
        age = time.time() - entry.stat(follow_symlinks=False).st_mtime
    except FileNotFoundError:
        return False  # its writer renamed it into place meanwhile
    return not process_is_running(pid) or age > max_age


def process_is_running(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (any owner)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists but belongs to someone else
    return True


@contextmanager
def locked(lock_file: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``lock_file`` (created if missing) for the ``with`` block.

    ``flock`` locks die with their process, so a killed holder never leaves a
    stale lock behind. It serialises read-modify-write cycles between two
    syncdesk processes sharing one repository.
    """
    try:
        # O_NOFOLLOW: a dangling symlink planted as the lock must not make syncdesk
        # create the file it points to, outside the repository.
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        descriptor = os.open(lock_file, flags, 0o666)
    except OSError as error:
        raise StorageError(f"could not open {lock_file}: {_reason(error)}") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _reason(error: OSError) -> str:
    return os_reason(error)
