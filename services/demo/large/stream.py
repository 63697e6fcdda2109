"""The whole history as one ``git fast-import`` stream: one git process writes every object.

Each distinct file text becomes one ``blob`` (marked, written once however
many commits hold it); each commit names its parents by mark and lists only
the files it changes against its first parent (``M``/``D``), so git builds
every tree itself. ``--export-marks`` then says which SHA each mark became.
Dates and identities are fixed in the stream, so the SHAs are the same on
every machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from syncdesk.services.demo.objects import Signature
from syncdesk.services.git.runner import Git

Changes = Mapping[str, str | None]


@dataclass(frozen=True, slots=True)
class PlannedCommit:
    """A commit to write: on ``ref``, with parents named by their keys, and its file changes."""

    key: str
    ref: str
    author: Signature
    committer: Signature
    message: str
    parents: tuple[str, ...]
    changes: Changes  # against parent 1 (None: deleted)


class FastImportStream:
    """Builds the stream; :meth:`run` feeds it to git and returns each commit's SHA by key."""

    def __init__(self, executable: frozenset[str] = frozenset()) -> None:
        self._parts: list[bytes] = []
        self._blobs: dict[str, int] = {}
        self._commits: dict[str, int] = {}
        self._next = 1
        self._executable = executable

    def _mark(self) -> int:
        mark, self._next = self._next, self._next + 1
        return mark

    def _blob(self, text: str) -> int:
        mark = self._blobs.get(text)
        if mark is None:
            mark = self._blobs[text] = self._mark()
            data = text.encode()
            self._parts += [b"blob\nmark :%d\ndata %d\n" % (mark, len(data)), data, b"\n"]
        return mark

    def add(self, commit: PlannedCommit) -> None:
        """Append a commit (its parents must have been added before it)."""
        files = []
        for path in sorted(commit.changes):
            text = commit.changes[path]
            if text is None:
                files.append(b"D %s\n" % path.encode())
            else:
                mode = b"100755" if path in self._executable else b"100644"
                files.append(b"M %s :%d %s\n" % (mode, self._blob(text), path.encode()))
        mark = self._commits[commit.key] = self._mark()
        message = commit.message.encode()
        head = [
            f"commit {commit.ref}",
            f"mark :{mark}",
            f"author {commit.author.encode()}",
            f"committer {commit.committer.encode()}",
            f"data {len(message)}",
        ]
        links = [f"from :{self._commits[commit.parents[0]]}"] if commit.parents else []
        links += [f"merge :{self._commits[parent]}" for parent in commit.parents[1:]]
        self._parts.append(("\n".join(head) + "\n").encode())
        self._parts += [message, b"\n", "".join(f"{line}\n" for line in links).encode()]
        self._parts += [*files, b"\n"]

    def add_all(self, commits: Sequence[PlannedCommit]) -> None:
        """Append commits in order."""
        for commit in commits:
            self.add(commit)

    def run(self, git: Git, marks: Path) -> dict[str, str]:
        """Import everything with one ``git fast-import``; return ``{key: sha}`` of the commits."""
        stream = b"".join([b"feature done\n", *self._parts, b"done\n"])
        git.run(["fast-import", "--quiet", f"--export-marks={marks}"], input=stream)
        by_mark = {}
        for line in marks.read_text(encoding="ascii").splitlines():
            mark, _, sha = line.partition(" ")
            by_mark[int(mark.lstrip(":"))] = sha
        return {key: by_mark[mark] for key, mark in self._commits.items()}
