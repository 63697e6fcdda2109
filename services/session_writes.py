"""The writes of one open sync, as the TUI and the CLI start them.

Each function reads what its question needs (the plan, the backup, the lease)
without moving anything; the move itself is done by :mod:`services.repair`,
:mod:`services.refmove` or :mod:`services.push`, which check the refs again
with a compare-and-swap at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.errors import BranchMovedError, NothingToDoError
from services.push import lease_for
from services.refmove import Backup, list_backups, read_branch
from services.repair import plan_repair, plan_signoff
from services.repair_models import RepairPlan
from services.resolved import approved_changes
from services.sanitize import one_line
from services.sync import SyncSession, writable_branch


def plan_from_approved(session: SyncSession) -> RepairPlan:
    """The repair the workspace's approved resolutions make on the session's branch.

    Raises :class:`NothingToDoError` when the repair already holds them all.
    """
    refs = session.refs
    return plan_repair(
        session.git,
        writable_branch(session),
        approved_changes(session),
        dev=refs.dev,
        main=refs.main,
        slice_size=session.config.slice_size,
    )


def plan_signoff_for(session: SyncSession) -> RepairPlan:
    """The session branch's repair, re-signed by the maintainer (same tree)."""
    refs = session.refs
    return plan_signoff(
        session.git,
        writable_branch(session),
        dev=refs.dev,
        main=refs.main,
        slice_size=session.config.slice_size,
    )


@dataclass(frozen=True, slots=True)
class UndoTarget:
    """What an undo would restore."""

    branch: str
    head: str  # where the branch is now
    backup: Backup  # the last backup; undo moves the branch to ``backup.before``


def undo_target(session: SyncSession) -> UndoTarget:
    """The last backup of the session's branch, which undo would restore.

    Raises :class:`NothingToDoError` when there is none, or the branch is already there.
    """
    short, _, head = read_branch(session.git, writable_branch(session))
    backups = list_backups(session.git, short)
    if not backups:
        raise NothingToDoError(f"nothing to undo: syncdesk has no backup of {one_line(short)}")
    last = backups[-1]
    if last.before == head:
        raise NothingToDoError(f"nothing to undo: {one_line(short)} is already at its backup")
    if last.after is not None and last.after != head:
        raise BranchMovedError(
            f"{one_line(short)} moved since syncdesk wrote it: it is at {head[:12]}, syncdesk "
            f"left it at {last.after[:12]}; undo would discard that, so it is not offered"
        )
    return UndoTarget(short, head, last)


@dataclass(frozen=True, slots=True)
class Lease:
    """What a push would send, and the remote commit it must replace."""

    branch: str
    remote: str
    head: str
    expected: str  # full id on the remote, "" when the branch is new there


def push_lease(session: SyncSession) -> Lease:
    """The session branch's push: its head and the lease on the remote's branch."""
    short, _, head = read_branch(session.git, writable_branch(session))
    remote = session.config.remote
    return Lease(short, remote, head, lease_for(session.git, remote, short))
