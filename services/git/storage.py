"""Where syncdesk keeps its files in a repository, and resolved text kept as git blobs safe from gc.

Why blobs rather than text inside the JSON (``research/reliability.md`` §2):
a resolution is written once with ``hash-object -w`` and named by its content,
so the state file holds 40-hex ids only. Undo stacks of a 10,000-line
``uv.lock`` cost an id per step instead of a copy per step, the same text is
stored once however often it is chosen, and every decision rewrites a JSON of
a few kilobytes instead of megabytes. ``core.fsync=loose-object`` makes git
fsync each blob before its rename, so a saved state never points at a blob
lost by a power cut.

An unreachable blob is deleted by ``git gc`` after two weeks (``gc.pruneExpire``),
and a carry-over store lives for months: each state and the store therefore
*pin* their blobs with a private ref to a tree that lists them
(``refs/syncdesk/...``; trees, not commits, so nothing shows in ``git log``).

Files live in ``<common git dir>/syncdesk``: under the git dir, never in the
work tree; the common dir, so that every linked worktree shares them and a bare
repository has them too.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.atomic import StorageError
from syncdesk.services.git.objects import read_contents
from syncdesk.services.git.runner import Git
from syncdesk.services.lines import bytes_to_lines, lines_to_bytes

PIN_PREFIX = "refs/syncdesk/"
# git holds a ref lock for milliseconds; ours, older than this, was left by a kill.
STALE_LOCK_SECONDS = 600.0

_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_pinned: dict[tuple[Path, str], frozenset[str]] = {}
_pinned_lock = threading.Lock()


def is_oid(text: str) -> bool:
    """Whether ``text`` is a full object id (SHA-1 or SHA-256, lowercase hex)."""
    return _OID.fullmatch(text) is not None


def storage_dir(git: Git) -> Path:
    """``<common git dir>/syncdesk``: the directory syncdesk keeps its files in (not created)."""
    return git.common_dir() / "syncdesk"


def write_blob(git: Git, data: bytes) -> str:
    """Store ``data`` as a blob (fsynced) and return its id; no filter or EOL conversion runs."""
    try:
        result = git.run(
            ["-c", "core.fsync=loose-object", "hash-object", "-w", "--no-filters", "--stdin"],
            input=data,
        )
    except GitCommandError as error:
        raise StorageError(f"could not store resolved text in git: {error.message}") from None
    return result.text.strip()


def write_lines(git: Git, lines: Sequence[str]) -> str:
    """Store resolved lines (see :func:`lines_to_bytes`) as a blob and return its id."""
    try:
        data = lines_to_bytes(lines)
    except UnicodeEncodeError as error:
        raise StorageError(f"resolved text cannot be stored: {error.reason}") from None
    return write_blob(git, data)


def read_blobs(git: Git, oids: Iterable[str], *, limit: int | None = None) -> dict[str, bytes]:
    """The content of each blob in ``oids`` that exists, with one ``cat-file`` process.

    With ``limit``, a blob over ``limit`` bytes is left out (see ``read_objects``).
    """
    return read_contents(git, (oid for oid in oids if is_oid(oid)), "blob", limit=limit)


def read_lines(git: Git, oid: str) -> list[str]:
    """The lines of one blob (:func:`bytes_to_lines`); :class:`StorageError` if it is missing."""
    content = read_blobs(git, [oid]).get(oid)
    if content is None:
        raise StorageError(f"resolved text {oid[:12]} is missing from the repository")
    return bytes_to_lines(content)


def existing_blobs(git: Git, oids: Iterable[str]) -> set[str]:
    """Those of ``oids`` that name a blob present in the repository (one ``cat-file`` call)."""
    wanted = sorted({oid for oid in oids if is_oid(oid)})
    if not wanted:
        return set()
    output = git.run(
        ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
        input="".join(f"{oid}\n" for oid in wanted).encode(),
    )
    return {
        fields[0]
        for fields in (line.split() for line in output.text.splitlines())
        if len(fields) == 2 and fields[1] == "blob"
    }


def pin_blobs(git: Git, ref: str, oids: Iterable[str], *, force: bool = False) -> None:
    """Point ``ref`` (under ``refs/syncdesk/``) at a tree listing ``oids``, so gc keeps them.

    Skipped when this process already pinned exactly this set (every cursor
    move saves the state), unless ``force``. Blobs that no longer exist are
    left out: a tree naming a missing object would break ``git gc`` itself.
    Raises :class:`StorageError` on failure.
    """
    if not ref.startswith(PIN_PREFIX):
        raise ValueError(f"{ref} is not one of syncdesk's refs")
    wanted = frozenset(oid for oid in oids if is_oid(oid))
    key = (storage_dir(git), ref)
    with _pinned_lock:
        if not force and _pinned.get(key) == wanted:
            return
        try:
            _clear_stale_lock(git, ref)
            _point_ref(git, ref, wanted)
        except GitCommandError as error:
            _pinned.pop(key, None)
            raise StorageError(f"could not protect resolutions from git gc: {error}") from None
        _pinned[key] = wanted


def _point_ref(git: Git, ref: str, oids: frozenset[str]) -> None:
    # A compare-and-swap like every other ref syncdesk moves: the callers hold
    # an flock, and a ref that changed between the read and the move anyway
    # (a hand-run update-ref) makes this fail instead of being overwritten.
    old = git.run(["rev-parse", "--verify", "--quiet", ref], check=False).text.strip()
    if not oids:
        if old:
            git.run(["update-ref", "-m", "syncdesk: nothing to keep", "-d", ref, old])
        return
    listing = "".join(f"100644 blob {oid}\t{oid}\n" for oid in sorted(oids)).encode()
    result = git.run(["mktree"], input=listing, check=False)
    if result.status != 0:  # some blob vanished: keep the others
        present = existing_blobs(git, oids)
        listing = "".join(f"100644 blob {oid}\t{oid}\n" for oid in sorted(present)).encode()
        result = git.run(["mktree"], input=listing)
    tree = result.text.strip()
    git.run(["update-ref", "-m", "syncdesk: keep resolution blobs", ref, tree, old])


def _clear_stale_lock(git: Git, ref: str) -> None:
    """Remove the lock of one of *our* refs if a killed ``update-ref`` left it long ago.

    Never applied to any other ref: a user's ref lock is theirs to clear.
    """
    lock = storage_dir(git).parent / f"{ref}.lock"
    try:
        if time.time() - lock.stat().st_mtime > STALE_LOCK_SECONDS:
            lock.unlink(missing_ok=True)
    except FileNotFoundError:
        pass
