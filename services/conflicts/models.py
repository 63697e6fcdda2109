"""The conflicts of a sync merge, as plain frozen dataclasses, and the pure functions on them.

A conflicted text file is an ordered sequence of *segments*: :class:`Common`
runs of lines (outside any conflict) and :class:`Hunk` conflicts. A UI shows
the three panes dev | result | main side by side by walking the segments: a
common run is the same in every pane, a hunk shows each side's lines, so the
panes line up hunk by hunk.

Unlike :mod:`syncdesk.services.sync.models`, these models carry **raw repository data**:
file contents and paths exactly as git stores them, decoded as UTF-8 with
``errors="surrogateescape"``, because the writer must put them back byte for
byte (CRLF, a missing final newline and invalid UTF-8 all round-trip through
:func:`rebuild`). Never show a line or a path without passing it through
:func:`shown` (``ConflictFile.display_path`` for a path). Only the fields said
to be sanitized (merge-tree messages, attribution text) are safe as they are.

Lines are split on LF only, each keeping its ending (:func:`split_lines`).
``str.splitlines`` would also split on CR, form feed, U+2028 and others, so
its line numbers would disagree with git's, and blame ranges would be wrong.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from syncdesk.services.lines import encode_text
from syncdesk.services.sanitize import one_line

ConflictType = Literal[
    "content", "add/add", "modify/delete", "file-location", "rename", "binary", "submodule"
]
Resolution = Literal["dev", "main", "union", "base", "custom", "deleted", "unresolved"]

CONFLICT_TYPES: tuple[ConflictType, ...] = (
    "content",
    "add/add",
    "modify/delete",
    "file-location",
    "rename",
    "binary",
    "submodule",
)
RESOLUTIONS: tuple[Resolution, ...] = (
    "dev",
    "main",
    "union",
    "base",
    "custom",
    "deleted",
    "unresolved",
)


def _normalised(lines: Iterable[str]) -> bytes:
    # Line endings and trailing whitespace are not part of a conflict's identity.
    return encode_text("".join(line.rstrip() + "\n" for line in lines))


def hunk_key(dev: Sequence[str], main: Sequence[str]) -> str:
    """A stable id for a conflict hunk, for carrying a resolution over to another sync.

    rerere's idea (sha1 of the normalised sides, labels and base left out),
    but per hunk, and with the sides kept in order: dev and main are not
    symmetric for a sync, so the same two sides swapped are another conflict.
    """
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(_normalised(dev))
    digest.update(b"\0")
    digest.update(_normalised(main))
    digest.update(b"\0")
    return digest.hexdigest()


def file_key(
    type: ConflictType, hunk_keys: Sequence[str], dev_blob: str | None, main_blob: str | None
) -> str:
    """A stable id for a whole file's conflict.

    A file with hunks is keyed by its hunks in order (a file with one new hunk
    gets a new key, as in rerere); a file resolved whole (binary, modify/delete,
    no markers) by its two sides' blobs. The path is not part of it.
    """
    if hunk_keys:
        material = "\0".join((type, "hunks", *hunk_keys))
    else:
        material = "\0".join((type, "blobs", dev_blob or "-", main_blob or "-"))
    return hashlib.sha1(material.encode(), usedforsecurity=False).hexdigest()


def joined(first: Sequence[str], second: Sequence[str]) -> tuple[str, ...]:
    """``first`` then ``second``, giving ``first``'s last line an ending if it lacks one.

    Only a file's last line lacks one, so a union at the end of a file would
    otherwise glue two lines together. The ending copies ``first``'s style.
    """
    if not first or not second or first[-1].endswith("\n"):
        return (*first, *second)
    ending = "\r\n" if len(first) > 1 and first[-2].endswith("\r\n") else "\n"
    return (*first[:-1], first[-1] + ending, *second)


@dataclass(frozen=True, slots=True)
class Common:
    """Lines outside any conflict: both sides agree, or git merged a one-sided change."""

    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Hunk:
    """One conflict of a text file, and how the head resolved it.

    ``dev``, ``base`` and ``main`` are the lines of each side exactly as in
    that side's file. Line numbers are 1-based; an empty side's number is the
    line it would start at (the number of lines before it + 1); a side whose
    file does not exist (add/add's base) starts at 0.
    """

    index: int  # 0-based position among the file's hunks
    dev: tuple[str, ...]
    base: tuple[str, ...]
    main: tuple[str, ...]
    dev_start: int
    base_start: int
    main_start: int
    conflict: tuple[str, ...]  # the marker block exactly as merge-tree wrote it
    key: str  # hunk_key(dev, main)
    head: tuple[str, ...] | None  # the head's lines for this hunk; None if not located
    head_start: int | None  # 1-based line of ``head`` in the head's file
    resolution: Resolution
    context_changed: bool  # the head also changed common lines next to this hunk

    @property
    def union(self) -> tuple[str, ...]:
        """dev's lines then main's (git's union merge order)."""
        return joined(self.dev, self.main)

    @property
    def union_main_first(self) -> tuple[str, ...]:
        """main's lines then dev's."""
        return joined(self.main, self.dev)


Segment = Common | Hunk


@dataclass(frozen=True, slots=True)
class ConflictFile:
    """One conflicted path of the sync merge, its sides, and the head's resolution.

    Paths are raw (see the module docstring): use :attr:`display_path` to show one.
    ``segments`` is None when the file can only be resolved whole: binary
    content, or a conflict git reported without markers (modify/delete, a
    ``merge=binary`` attribute, a symlink, a renamed file with no content clash)
    or a version too large to read (``too_large``).
    """

    path: str  # where merge-tree put the file (dev's name for a rename/rename)
    old_paths: tuple[str, ...]  # the other names involved (renames, directory renames)
    type: ConflictType
    base_path: str | None  # the file's path in each side's commit (for blame)
    dev_path: str | None
    main_path: str | None
    base_blob: str | None  # the index stage blobs merge-tree reported; None when absent
    dev_blob: str | None
    main_blob: str | None
    result_blob: str | None  # merge-tree's version of ``path`` (with markers)
    head_path: str | None  # where the head holds the file; None when it deleted it
    head_blob: str | None
    mode: str  # the mode git gave the path (100644, 100755, 120000, 160000)
    binary: bool
    decodable: bool  # False: invalid UTF-8 (or binary): offer whole-file resolution only
    messages: tuple[str, ...]  # merge-tree's messages about these paths (sanitized)
    segments: tuple[Segment, ...] | None
    head_lines: tuple[str, ...] | None  # the head's whole file, for the result pane
    resolution: Resolution
    file_key: str
    # The size in bytes of its largest version when that is over the large-file
    # limit (0: none is): such a file is compared by blob id, never read whole.
    too_large: int = 0

    @property
    def hunks(self) -> tuple[Hunk, ...]:
        """The conflict hunks, in file order."""
        if self.segments is None:
            return ()
        return tuple(segment for segment in self.segments if isinstance(segment, Hunk))

    @property
    def whole_file_only(self) -> bool:
        """Whether only a whole-file choice can resolve it (no hunk-level view)."""
        return self.segments is None or self.binary or not self.decodable or bool(self.too_large)

    @property
    def display_path(self) -> str:
        """The path, safe to show on one line."""
        return one_line(self.path)


@dataclass(frozen=True, slots=True)
class ConflictSet:
    """Every conflict of merging ``dev_side`` (parent 1) with ``main_side`` (parent 2)."""

    dev_side: str  # the dev base
    main_side: str  # the slice tip
    head: str | None  # where resolutions were read; None when the sync is not built yet
    tree: str  # merge-tree's result tree (in a scratch object store: not kept)
    clean: bool  # merge-tree's exit status said so (the file list alone cannot)
    files: tuple[ConflictFile, ...]
    messages: tuple[str, ...]  # conflict messages about no conflicted file (sanitized)
    # Every path merge-tree listed with index stages (raw): what ``merge-tree --name-only`` prints.
    stage_paths: tuple[str, ...] = ()
    # Asked for (read_conflicts' remerge_of): the paths the sync merge's recorded
    # result changes against this re-merge (raw), what --remerge-diff --name-only lists.
    remerged: tuple[str, ...] = ()

    def file(self, path: str) -> ConflictFile | None:
        """The conflict at ``path`` (or with ``path`` among its old paths)."""
        for conflict in self.files:
            if conflict.path == path:
                return conflict
        return next((c for c in self.files if path in c.old_paths), None)

    @property
    def hunk_count(self) -> int:
        """The number of conflict hunks over all files."""
        return sum(len(conflict.hunks) for conflict in self.files)


@dataclass(frozen=True, slots=True)
class BlamedCommit:
    """A commit blame named for some lines of a hunk (text fields sanitized)."""

    sha: str
    subject: str
    author_name: str
    author_email: str
    date: str  # author date, ISO 8601 strict


@dataclass(frozen=True, slots=True)
class HunkAttribution:
    """Which commits wrote each side of one hunk.

    ``main``: slice commits (``dev_base..slice_tip``); ``dev``: dev's own commits
    (``slice_tip..dev_base``). Lines older than that range name no commit, and
    an empty side names none (blame finds who wrote lines, not who deleted them).
    """

    dev: tuple[BlamedCommit, ...]
    main: tuple[BlamedCommit, ...]


@dataclass(frozen=True, slots=True)
class FileAttribution:
    """The attribution of every hunk of one file, in hunk order."""

    path: str  # raw, as ConflictFile.path
    hunks: tuple[HunkAttribution, ...]
    problems: tuple[str, ...]  # blame failures, sanitized (the hunks then name no commit)


@dataclass(frozen=True, slots=True)
class Attribution:
    """The attribution of every conflicted file that has hunks."""

    files: tuple[FileAttribution, ...]

    def for_path(self, path: str) -> FileAttribution | None:
        """The attribution of the conflict at ``path`` (``ConflictFile.path``)."""
        return next((item for item in self.files if item.path == path), None)


def rebuild(segments: Sequence[Segment], choices: Sequence[Sequence[str] | None]) -> str:
    """The file's text with each hunk replaced by the chosen lines.

    ``choices`` has one entry per hunk, in order: the lines to put there
    (``hunk.dev``, ``hunk.union``, an edited list...), or None to leave the
    conflict as merge-tree wrote it. With every choice None the result is
    merge-tree's file byte for byte. Encode with :func:`encode_text`.
    """
    hunks = sum(1 for segment in segments if isinstance(segment, Hunk))
    if len(choices) != hunks:
        raise ValueError(f"{len(choices)} choices for {hunks} hunks")
    parts: list[str] = []
    chosen = iter(choices)
    for segment in segments:
        if isinstance(segment, Common):
            parts.extend(segment.lines)
        else:
            choice = next(chosen)
            parts.extend(segment.conflict if choice is None else choice)
    return "".join(parts)
