"""One version of the repository, read lazily: the files the breakage check asks for.

The check (:mod:`syncdesk.services.audit.breakage`) reads a few hundred files
of three commits, in rounds: the changed files, then the modules they import,
then the modules those re-export from. :class:`GitTree` answers each round
with one ``cat-file`` process, after one ``ls-tree`` of the whole commit has
named every blob (so that no ``<commit>:<path>`` lookup is needed, and an
absent path costs nothing).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from syncdesk.services.audit.sources import read_blobs
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import decode_path

_BLOB = b"blob"


class Tree(Protocol):
    """One version of the repository, read lazily."""

    def read(self, paths: Iterable[str]) -> dict[str, bytes]:
        """The content of each of ``paths`` that is a file; absent paths are left out."""
        ...


class GitTree:
    """The tree of one commit, read with ``git ls-tree`` once and ``cat-file`` per :meth:`read`.

    Files are read as stored (no smudge filter, no textconv): what the
    commit holds. A gitlink (submodule) or a directory is not a file.
    """

    def __init__(self, git: Git, commit: str) -> None:
        self._git = git
        self._commit = commit
        self._blobs: dict[str, str] | None = None  # path -> blob id, listed on the first read

    def read(self, paths: Iterable[str]) -> dict[str, bytes]:
        """The content of each of ``paths`` the commit holds as a file, in one ``cat-file``."""
        blobs = self._listing()
        wanted = {path: blobs[path] for path in paths if path in blobs}
        if not wanted:
            return {}
        contents = read_blobs(self._git, wanted.values())
        return {path: contents[sha] for path, sha in wanted.items() if sha in contents}

    def _listing(self) -> dict[str, str]:
        if self._blobs is None:
            self._blobs = _list_blobs(self._git, self._commit)
        return self._blobs


def _list_blobs(git: Git, commit: str) -> dict[str, str]:
    """Every file of ``commit``'s tree, by path: its blob id."""
    # -z: paths come unquoted, one "<mode> SP <type> SP <id> TAB <path>" per NUL.
    out = git.run(["ls-tree", "-r", "-z", "--full-tree", commit, "--"]).stdout
    blobs: dict[str, str] = {}
    for entry in out.split(b"\0"):
        meta, tab, raw_path = entry.partition(b"\t")
        if not tab:
            continue  # the empty field after the last NUL
        _mode, kind, sha = meta.split(b" ")
        if kind == _BLOB:
            blobs[decode_path(raw_path)] = sha.decode()
    return blobs
