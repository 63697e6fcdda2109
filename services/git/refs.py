"""Move a branch safely: one ``update-ref`` transaction with a compare-and-swap and a backup.

Every move is a single ``git update-ref --stdin`` transaction::

    start
    update refs/heads/<b> <new> <old>                        the compare-and-swap
    create refs/syncdesk/backup/<b>/<n>/before <old>          what the branch was
    create refs/syncdesk/backup/<b>/<n>/after <new>           what syncdesk made it
    prepare
    commit

``prepare`` locks all three refs and checks every old value; if any check
fails, nothing at all is changed ("If all refs can be locked with matching
old-oids simultaneously, all modifications are performed. Otherwise, no
modifications are performed"), and a transaction whose input ends without
``commit`` (a killed writer) is aborted by git. ``-m`` gives the reflog entry
a reason and ``--create-reflog`` makes sure the branch has a reflog even in a
bare repository.

The ``after`` ref lets :func:`undo_last` refuse to discard work: it restores
the last backup only while the branch is still where syncdesk left it, and
records a backup of what it replaces, so an undo can itself be undone. Backups
are never deleted by syncdesk (``git update-ref -d`` removes them by hand).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from syncdesk.services.errors import (
    BranchMovedError,
    GitCommandError,
    MissingRefError,
    NothingToDoError,
    RefLockedError,
    ServiceError,
)
from syncdesk.services.git.runner import Git, first_line
from syncdesk.services.git.trees import durable_env
from syncdesk.services.sanitize import one_line

BACKUP_PREFIX = "refs/syncdesk/backup/"
_NUMBER_WIDTH = 6
# update-ref's old value for "must not exist yet" (any object format: git reads zeros).
_ABSENT = "0" * 40


@dataclass(frozen=True, slots=True)
class UndoResult:
    """What an undo restored."""

    branch: str
    old_head: str  # where the branch was (now kept by ``backup_ref``)
    new_head: str  # the backup that was restored
    backup_ref: str  # the backup of ``old_head``: undoing the undo restores it
    restored_from: str  # the backup that was restored
    note: str = ""  # what the user should know (a checkout git refused to update)


@dataclass(frozen=True, slots=True)
class Backup:
    """One backup of a branch: where it was before a move, and where the move left it."""

    number: int
    ref: str  # refs/syncdesk/backup/<branch>/<n>; the refs are <ref>/before and <ref>/after
    before: str
    after: str | None


def branch_ref(git: Git, branch: str) -> tuple[str, str]:
    """``(short name, full ref)`` of a branch named either way; refuse an invalid name."""
    short = branch.removeprefix("refs/heads/")
    ref = f"refs/heads/{short}"
    if git.run(["check-ref-format", ref], check=False).status != 0:
        raise ServiceError(f"not a valid branch name: {one_line(branch)!r}")
    return short, ref


def read_branch(git: Git, branch: str) -> tuple[str, str, str]:
    """``(short name, full ref, commit)`` of an existing local branch."""
    short, ref = branch_ref(git, branch)
    result = git.run(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], check=False)
    if result.status != 0:
        raise MissingRefError(f"no local branch named {one_line(short)!r}")
    return short, ref, result.text.strip()


def read_target(git: Git, branch: str, tracking: str | None) -> tuple[str, str, str, bool]:
    """``(short, full ref, commit, creates)`` of the branch a write moves.

    When the local branch does not exist and the sync was named by its
    remote-tracking ref ``tracking``, the write starts from that ref's commit and
    creates the local branch (``creates``); otherwise as :func:`read_branch`.
    """
    short, ref = branch_ref(git, branch)
    if tracking is not None and git.resolve(ref) is None:
        sha = git.resolve(tracking)
        if sha is not None:
            return short, ref, sha, True
    return (*read_branch(git, branch), False)


def current_branch(git: Git) -> str | None:
    """The branch checked out in this work tree, or None when HEAD is detached."""
    result = git.run(["symbolic-ref", "--quiet", "--short", "HEAD"], check=False)
    if result.status != 0:
        return None
    return result.text.strip() or None


def checked_out_in(git: Git, ref: str) -> tuple[str, ...]:
    """The work trees (this one included) that have ``ref`` checked out."""
    fields = git.run(["worktree", "list", "--porcelain", "-z"]).stdout.split(b"\0")
    places: list[str] = []
    path = None
    for field in fields:
        text = field.decode("utf-8", "surrogateescape")
        if text.startswith("worktree "):
            path = text.removeprefix("worktree ")
        elif text == f"branch {ref}" and path is not None:
            places.append(path)
    return tuple(places)


def list_backups(git: Git, branch: str) -> list[Backup]:
    """The backups of ``branch``, oldest first."""
    short, _ = branch_ref(git, branch)
    prefix = f"{BACKUP_PREFIX}{short}/"
    pattern = re.compile(re.escape(prefix) + r"(\d+)/(before|after)")
    found: dict[int, dict[str, str]] = {}
    for line in git.lines("for-each-ref", "--format=%(objectname) %(refname)", prefix):
        sha, _, name = line.partition(" ")
        match = pattern.fullmatch(name)
        if match is not None:
            found.setdefault(int(match[1]), {})[match[2]] = sha
    return [
        Backup(number, f"{prefix}{number:0{_NUMBER_WIDTH}d}", refs["before"], refs.get("after"))
        for number, refs in sorted(found.items())
        if "before" in refs
    ]


def move_branch(
    git: Git, branch: str, new: str, old: str, reason: str, *, create: bool = False
) -> str:
    """Move ``branch`` from ``old`` to ``new`` with a backup, atomically; return the backup.

    With ``create`` the branch must not exist yet (git's all-zero old value) and
    is created at ``new``; ``old`` (the remote-tracking commit it was read from)
    is then the backup's "before", so an undo leaves it where the remote was.
    Raises :class:`BranchMovedError` if the branch is not at ``old`` (or exists,
    with ``create``) and :class:`RefLockedError` if git cannot lock it; nothing
    changes then.
    """
    short, ref = branch_ref(git, branch)
    backups = list_backups(git, short)
    number = backups[-1].number + 1 if backups else 1
    backup = f"{BACKUP_PREFIX}{short}/{number:0{_NUMBER_WIDTH}d}"
    commands = (
        "start\n"
        f"update {ref} {new} {_ABSENT if create else old}\n"
        f"create {backup}/before {old}\n"
        f"create {backup}/after {new}\n"
        "prepare\n"
        "commit\n"
    )
    result = git.run(
        ["update-ref", "--create-reflog", "-m", f"syncdesk: {one_line(reason)}", "--stdin"],
        input=commands.encode(),
        env=durable_env(),
        check=False,
    )
    if result.status != 0:
        _refused(git, short, ref, old, result.stderr)
    return backup


def _refused(git: Git, short: str, ref: str, expected: str, stderr: str) -> None:
    reason = first_line(stderr)
    name = one_line(short)
    if "but expected" in reason or "unable to resolve reference" in reason:
        now = git.run(["rev-parse", "--verify", "--quiet", ref], check=False).text.strip()
        raise BranchMovedError(
            f"{name} moved since it was read: it is at {now[:12] or 'nothing (deleted)'}, "
            f"expected {expected[:12]}; nothing was changed"
        )
    if "File exists" in reason or "Unable to create" in reason:
        raise RefLockedError(
            f"could not lock {name}: {reason} (another git may be running; "
            "if none is, remove the .lock file); nothing was changed"
        )
    if "reference already exists" in reason and f"'{ref}'" in reason:
        raise BranchMovedError(
            f"the local branch {name} was created since the sync was read; nothing was "
            "changed: open it and write again"
        )
    if "reference already exists" in reason:
        raise BranchMovedError(
            f"another syncdesk wrote a backup of {name} at the same time ({reason}); "
            "nothing was changed"
        )
    raise GitCommandError(f"could not move {name}: {reason}; nothing was changed")


def undo_last(
    git: Git,
    branch: str,
    *,
    expected_head: str | None = None,
    expected_backup: str | None = None,
) -> UndoResult:
    """Restore the branch to its last backup, if it is still where syncdesk left it.

    The move is a compare-and-swap with its own backup (of what it replaces),
    so running undo again restores what this undo replaced. ``expected_head``
    and ``expected_backup`` are what the user confirmed: if another write
    came in between, nothing is changed.
    """
    short, _, head = read_branch(git, branch)
    backups = list_backups(git, short)
    if not backups:
        raise NothingToDoError(f"nothing to undo: syncdesk has no backup of {one_line(short)}")
    last = backups[-1]
    if (expected_head is not None and head != expected_head) or (
        expected_backup is not None and last.ref != expected_backup
    ):
        raise BranchMovedError(
            f"{one_line(short)} changed since you confirmed the undo (it is at {head[:12]}); "
            "nothing was changed: look again and undo again"
        )
    if last.after is not None and last.after != head:
        raise BranchMovedError(
            f"{one_line(short)} moved since syncdesk wrote it: it is at {head[:12]}, "
            f"syncdesk left it at {last.after[:12]}; undo would discard that, "
            "so nothing was changed"
        )
    if last.before == head:
        raise NothingToDoError(f"nothing to undo: {one_line(short)} is already at its backup")
    backup = move_branch(
        git, short, last.before, head, f"undo: restore {last.ref.removeprefix(BACKUP_PREFIX)}"
    )
    return UndoResult(short, head, last.before, backup, last.ref)
