"""What the writer plans and what it reports: plain frozen dataclasses, no git.

:class:`RepairPlan` is computed without moving any ref (the preview shows it);
:func:`syncdesk.services.write.repair.write_repair` turns it into a commit and moves the
branch, and answers with a :class:`WriteResult`. Undo, push and rebuild have
their own results. Commit ids are full SHAs; text meant for people (notes,
diff text, problems) is already sanitized; paths are raw repository paths
(decoded with ``surrogateescape``: show them with
:func:`syncdesk.services.conflicts.models.shown`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file's content at the new repair.

    ``content`` None deletes the file. ``mode`` None keeps the head's mode
    (``100644`` for a file the head does not have); else ``100644``,
    ``100755`` or ``120000`` (a symlink, whose content is its target).
    ``gitlink`` makes the path a submodule at that commit instead (``content``
    and ``mode`` unused). ``blob`` names a blob the repository holds as the
    file's content instead of ``content`` (a file too large to read: one
    side's version, taken whole).
    """

    path: str
    content: bytes | None
    mode: str | None = None
    gitlink: str | None = None
    blob: str | None = None


@dataclass(frozen=True, slots=True)
class PreviewCheck:
    """Something the preview found in a file the write would change.

    ``kind``: ``keep-dev`` (a file the policy keeps as dev has it would
    differ from dev's), ``syntax`` (a Python file that does not compile:
    ``blocking``, the write waits for a confirmation), ``duplicate-def`` (two
    adjacent definitions of one name: the second silently replaces the first).
    ``message`` is one sanitized line; ``path`` is raw.
    """

    kind: str
    path: str
    line: int | None
    message: str
    blocking: bool = False


@dataclass(frozen=True, slots=True)
class RepairPlan:
    """Everything the preview shows, and everything the write needs.

    ``new_tree`` and the blobs it names are already in the repository's object
    store (unreachable until the write references them); no ref has moved.
    """

    branch: str  # the short name, e.g. main2dev/demo
    ref: str  # refs/heads/<branch>
    old_head: str  # where the branch was read; the write refuses if it moved
    merge: str  # the sync merge; the new repair's only parent
    old_repair: str | None  # the head when something sits on the merge (it is replaced)
    new_tree: str
    message: str  # the full commit message, trailers included
    changes: tuple[FileChange, ...]  # only those that differ from the head
    diff_stat: str  # the new repair commit against the merge (what it holds, whole)
    diff_vs_old_repair: str  # --stat and patch, old repair (or merge) -> new tree, capped
    replaces: tuple[str, ...] = ()  # every commit on top of the merge, oldest first
    dev: str = "dev"  # how the anatomy is re-verified after the write
    main: str = "main"
    author: str | None = None  # "Name <email> <epoch> <tz>" kept from the replaced repair
    sign: bool = False  # commit.gpgSign says to sign it
    # Named by its remote-tracking ref with no local branch yet: the write creates
    # the local branch at the new commit (``old_head`` is the tracking ref's commit).
    tracking: str | None = None
    creates: bool = False
    # What the user must hear about the decisions the plan was made from: a
    # corrupt state moved aside, choices dropped because their text is gone.
    notes: tuple[str, ...] = ()
    # What the preview checked in the files this write changes (see write/checks.py).
    checks: tuple[PreviewCheck, ...] = ()

    @property
    def blocking(self) -> tuple[PreviewCheck, ...]:
        """The checks that stop the write until the maintainer confirms it anyway."""
        return tuple(check for check in self.checks if check.blocking)


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What a write did, re-verified from the repository afterwards."""

    branch: str
    old_head: str
    new_head: str
    backup_ref: str  # refs/syncdesk/backup/<branch>/<n>: its before/after refs
    anatomy_ok: bool  # N originals + merge + exactly one repair, every rule kept
    problems: tuple[str, ...]  # the anatomy's problems (and a moved branch), one line each
    tree_verified: bool  # the branch's tree is exactly the tree that was planned
    patch_id_same: bool | None  # vs the previous repair's patch; None: nothing to compare
    patch_note: str  # "patch identical to the previous repair", or what differs
    checked_out_in: tuple[str, ...] = ()  # work trees that have the branch checked out
    note: str = ""  # what the user should know (a checked-out branch's files are stale)


@dataclass(frozen=True, slots=True)
class PushResult:
    """How a push ended, classified in one line."""

    ok: bool
    message: str
    reason: str = ""  # "pushed", "up-to-date", "stale-lease", "rejected", "auth", "failed"


@dataclass(frozen=True, slots=True)
class RebuildResult:
    """What a rebuild on a new dev base carried over, what it left, and what it wrote."""

    branch: str
    old_head: str
    new_head: str
    new_merge: str
    onto: str
    backup_ref: str
    carried_files: tuple[str, ...]  # conflicts resolved as before (whole file, or every hunk)
    carried_hunks: int  # hunks of partly changed files resolved as before
    left: tuple[str, ...]  # conflicts still needing a decision (markers left in the merge)
    evil_carried: tuple[str, ...]  # non-conflict changes of the old merge carried over
    not_carried: tuple[str, ...]  # old merge changes that no longer apply (see the backup)
    repair_conflicts: tuple[str, ...]  # files where the old repair's patch no longer applies
    anatomy_ok: bool
    problems: tuple[str, ...]
    tree_verified: bool
    patch_id_same: bool | None
    patch_note: str
    learned_hunks: int = 0  # old resolutions stored as suggestions for what is left
    checked_out_in: tuple[str, ...] = ()
    note: str = ""
