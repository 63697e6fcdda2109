"""Small repositories with chosen conflicts, built with real git.

``build_conflicts`` makes a base commit, a ``dev`` commit and a ``main``
commit on top of it (each side's files given as ``{path: content or None}``),
and optionally a ``head`` commit on dev holding the resolution: a plain
commit whose tree is what the maintainer's merge + repair would hold. The
services only compare trees, so the head need not be a merge, except where a
test wants a real sync merge (``merge_head``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from syncdesk.services.git.runner import Git
from tests.gitrepo import GitRepo

Files = Mapping[str, str | bytes | None]


@dataclass
class ConflictRepo:
    repo: GitRepo
    base: str
    dev: str
    main: str

    @property
    def git(self) -> Git:
        return Git(self.repo.path)

    def blob(self, rev: str, path: str) -> str:
        """The blob id of ``path`` at ``rev``."""
        return self.repo.git("rev-parse", f"{rev}:{path}")

    def show(self, rev: str, path: str) -> bytes:
        """The raw bytes of ``path`` at ``rev``."""
        import subprocess

        return subprocess.run(
            ["git", "cat-file", "blob", f"{rev}:{path}"],
            cwd=self.repo.path,
            capture_output=True,
            check=True,
        ).stdout

    def head(self, files: Files, *, on: str | None = None, name: str = "sync") -> str:
        """A commit on top of ``on`` (dev by default) changing ``files``: the resolution."""
        self.repo.checkout(name, on or self.dev)
        return self.repo.commit("Resolve the sync", dict(files))


def build_conflicts(path: Path, base: Files, dev: Files, main: Files) -> ConflictRepo:
    """Base commit on main, then one commit on ``dev`` and one on ``main`` from it."""
    repo = GitRepo(path)
    root = repo.commit("Base", dict(base))
    repo.checkout("dev", root)
    dev_sha = _commit_moves(repo, "dev: its changes", dev)
    repo.checkout("main")
    main_sha = _commit_moves(repo, "main: its changes", main)
    return ConflictRepo(repo, root, dev_sha, main_sha)


def _commit_moves(repo: GitRepo, message: str, files: Files) -> str:
    """Commit ``files``; a key ``"old -> new"`` with value None renames with ``git mv``."""
    plain: dict[str, str | bytes | None] = {}
    for name, content in files.items():
        if " -> " in name:
            old, new = name.split(" -> ")
            (repo.path / new).parent.mkdir(parents=True, exist_ok=True)
            repo.git("mv", "--", old, new)
            if content is not None:
                plain[new] = content
        else:
            plain[name] = content
    return repo.commit(message, plain)


def numbered(count: int, prefix: str = "line") -> str:
    """``count`` distinct lines, ``<prefix> 1`` to ``<prefix> count``."""
    return "".join(f"{prefix} {number}\n" for number in range(1, count + 1))


def replace_lines(text: str, changes: Mapping[int, str | None]) -> str:
    """``text`` with 1-based lines replaced (a value may hold several lines; None deletes)."""
    lines = text.splitlines(keepends=True)
    out = []
    for number, line in enumerate(lines, start=1):
        if number in changes:
            value = changes[number]
            if value is not None:
                out.append(value)
        else:
            out.append(line)
    return "".join(out)
