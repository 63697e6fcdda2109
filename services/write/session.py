"""The writes of one open sync, as the TUI and the CLI both start them.

Every write is two steps. The first reads what its question needs (the plan,
the backup, the lease) without moving anything, and the question is asked
from it. The second takes exactly what was read and confirmed: the repair
plan, the undo target or the push lease, and moves the branch only if it is
still where it was when the question was asked (a compare-and-swap at that
moment). A key in the TUI and a command on the command line call the same two
functions, so what one guarantees the other does too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.errors import BranchMovedError, NothingToDoError, ServiceError
from syncdesk.services.git.refs import (
    Backup,
    UndoResult,
    branch_ref,
    list_backups,
    read_branch,
    undo_last,
)
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.models import SyncReport
from syncdesk.services.sync.session import SyncSession, writable_branch, write_tracking
from syncdesk.services.write.approved import approved_changes
from syncdesk.services.write.checkout import after_move, require_clean_checkouts
from syncdesk.services.write.checks import preview_checks
from syncdesk.services.write.fold import FoldPlan, fold_merges, plan_fold
from syncdesk.services.write.models import PushResult, RebuildResult, RepairPlan, WriteResult
from syncdesk.services.write.push import lease_for, push_url, push_with_lease
from syncdesk.services.write.rebuild import rebuild_onto
from syncdesk.services.write.repair import plan_repair, plan_signoff, write_repair


def plan_from_approved(session: SyncSession) -> RepairPlan:
    """The repair the workspace's approved resolutions make on the session's branch.

    Raises :class:`NothingToDoError` when the repair already holds them all.
    """
    refs = session.refs
    approved = approved_changes(session)
    notes = approved.notes
    try:
        plan = plan_repair(
            session.git,
            writable_branch(session),
            approved.changes,
            dev=refs.dev,
            main=refs.main,
            tracking=write_tracking(session),
        )
    except NothingToDoError as error:
        message = _nothing_to_write(error.message, approved.approved, approved.conflicted)
        if notes:  # nothing to write *because* decisions were set aside: say why
            message += f" ({'; '.join(notes)})"
        raise NothingToDoError(message) from None
    checks = preview_checks(session.git, plan, session.config.keep_dev)
    return replace(plan, notes=notes, checks=checks)


def _nothing_to_write(message: str, approved: int, conflicted: int) -> str:
    """Why there is nothing to write, in the words that fit: "already holds" only when true."""
    if conflicted and not approved:
        return (
            f"nothing to write: no file is approved yet (0 of {conflicted}); in the conflict "
            "workspace (c), decide each file and approve it (a), then preview the repair again"
        )
    return message


def plan_signoff_for(session: SyncSession) -> RepairPlan:
    """The session branch's repair, re-signed by the maintainer (same tree)."""
    refs = session.refs
    return plan_signoff(
        session.git,
        writable_branch(session),
        dev=refs.dev,
        main=refs.main,
        tracking=write_tracking(session),
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
    url: str  # where the push goes: the remote's push URL, as git will use it
    head: str
    expected: str  # full id on the remote, "" when the branch is new there


def push_lease(session: SyncSession) -> Lease:
    """The session branch's push: its head and the lease on the remote's branch."""
    short, _, head = read_branch(session.git, writable_branch(session))
    remote = session.config.remote
    url = push_url(session.git, remote)
    return Lease(short, remote, url, head, lease_for(session.git, remote, short))


def push_question(lease: Lease) -> str:
    """The confirmation of a push, naming the commit it sends and the one it replaces."""
    replacing = lease.expected[:12] if lease.expected else "nothing (a new branch there)"
    return (
        f"Push {one_line(lease.branch)} ({lease.head[:12]}) to {one_line(lease.remote)} "
        f"({one_line(lease.url)}), replacing {replacing}? The push is refused if the "
        "remote's branch is no longer at that commit, or the local branch is no longer at "
        "this one."
    )


def push_confirmed(session: SyncSession, lease: Lease) -> PushResult:
    """Push exactly the commit the user confirmed, with the lease they were shown.

    Refused, with nothing pushed, if the local branch moved since the question
    (:class:`BranchMovedError`) or the remote's branch is no longer at
    ``lease.expected`` (the push's own lease).
    """
    return push_with_lease(session.git, lease.remote, lease.branch, lease.expected, head=lease.head)


def undo_question(target: UndoTarget) -> str:
    """The confirmation of an undo, naming both commits."""
    return (
        f"Restore {one_line(target.branch)} to {target.backup.before[:12]}, where it was "
        f"before syncdesk's last write? It is now at {target.head[:12]}; a new backup keeps "
        "that, so undo again brings it back."
    )


def undo_confirmed(session: SyncSession, target: UndoTarget) -> UndoResult:
    """Restore the backup the user confirmed, only if the branch and its backups are unchanged.

    As a write, an undo is refused while the branch is checked out with local
    changes, and a clean checkout follows it (services/write/checkout.py).
    """
    _, ref = branch_ref(session.git, target.branch)
    places = require_clean_checkouts(session.git, ref, target.branch)
    result = undo_last(
        session.git, target.branch, expected_head=target.head, expected_backup=target.backup.ref
    )
    note = after_move(places, result.branch, result.old_head, result.new_head)
    return replace(result, note=note)


def undone_message(result: UndoResult) -> str:
    """What an undo did, in one line (and what a checkout that did not follow needs)."""
    line = (
        f"{one_line(result.branch)}: {result.old_head[:12]} → {result.new_head[:12]} "
        f"(the undone head is kept in {one_line(result.backup_ref)}; undo again to go back)"
    )
    return f"{line}; {result.note}" if result.note else line


def write_confirmed(
    session: SyncSession, plan: RepairPlan, *, despite_blocking: bool = False
) -> WriteResult:
    """Write the repair the user previewed, only if the branch is still where the plan read it.

    A plan whose checks block (a Python file that does not compile) is written
    only with ``despite_blocking``: the maintainer saw the problem and said yes.
    """
    if plan.blocking and not despite_blocking:
        found = "; ".join(check.message for check in plan.blocking[:3])
        more = f" (and {len(plan.blocking) - 3} more)" if len(plan.blocking) > 3 else ""
        raise ServiceError(
            f"the repair was not written: {found}{more}; write it anyway only after looking "
            "at it (the preview asks; syncdesk repair --write --despite-syntax-errors)"
        )
    return write_repair(session.git, plan)


def fold_plan(session: SyncSession) -> FoldPlan:
    """What folding the session branch's merges of dev would do (services/write/fold.py)."""
    refs = session.refs
    return plan_fold(
        session.git,
        writable_branch(session),
        dev=refs.dev,
        main=refs.main,
        tracking=write_tracking(session),
    )


def fold_confirmed(session: SyncSession, plan: FoldPlan) -> WriteResult:
    """Fold exactly what the user confirmed; refused if the branch moved since."""
    return fold_merges(session.git, plan)


def rebuild_question(report: SyncReport) -> str:
    """The confirmation of a rebuild on dev's new tip."""
    advanced = report.dev_advanced
    new = len(advanced.commits)
    return (
        f"Rebuild the sync ({report.refs.head[:12]}) on dev's tip {advanced.dev_tip[:12]} "
        f"({new} new dev commit{'s' if new != 1 else ''})? Every hand resolution of the "
        "merge and the repair is carried over; what no longer applies is listed to decide "
        "again. A backup is kept, and undo restores the branch."
    )


def rebuild_confirmed(
    session: SyncSession, head: str | None, onto: str, store: ResolutionStore | None = None
) -> RebuildResult:
    """Rebuild the session's sync on ``onto``, only if the branch is still at ``head``.

    ``head`` None: wherever the branch is now (the command line, which asks
    nothing first). The old resolutions are learned into ``store`` (else the
    repository's own), whose notes say what it had to set aside.
    """
    refs = session.refs
    return rebuild_onto(
        session.git,
        writable_branch(session),
        onto,
        dev=refs.dev,
        main=refs.main,
        store=store if store is not None else ResolutionStore.open(session.git),
        tracking=write_tracking(session),
        expected_head=head,
    )
