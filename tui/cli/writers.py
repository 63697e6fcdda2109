"""The writers: ``repair``, ``fold``, ``undo``, ``rebuild``, ``push``.

Each acts on a local sync branch: ``--branch NAME``, else the checked-out branch.
Each prints what it did and, when it moved the branch, the new head as its last
line; a write whose result does not re-verify exits 1.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.errors import ServiceError
from syncdesk.services.sanitize import one_line, visible
from syncdesk.services.sync.session import SyncSession, open_sync, writable_branch
from syncdesk.services.write.models import RebuildResult, RepairPlan, WriteResult
from syncdesk.services.write.session import (
    fold_confirmed,
    fold_plan,
    plan_from_approved,
    push_confirmed,
    push_lease,
    push_question,
    rebuild_confirmed,
    undo_confirmed,
    undo_target,
    undone_message,
    write_confirmed,
)
from syncdesk.tui.cli.exits import EXIT_ERROR
from syncdesk.tui.cli.parser import sync_options


def repair_command(args: argparse.Namespace) -> int:
    """``repair``: the approved resolutions as the repair commit, previewed or written."""
    session = _writer_session(args)
    plan = plan_from_approved(session)
    for note in plan.notes:  # what the TUI shows on opening the workspace
        _print_note(note)
    if args.preview:
        _print_plan(plan)
        print("Nothing was written: syncdesk repair --write writes it.")
        return 0
    result = write_confirmed(session, plan, despite_blocking=args.despite_syntax_errors)
    print(f"Wrote repair {result.new_head[:12]} on {one_line(result.branch)} {_was(result)}")
    return _verified(result)


def fold_command(args: argparse.Namespace) -> int:
    """``fold``: dev's merges on top dropped, the sync rebuilt on the newest dev."""
    session = _writer_session(args)
    plan = fold_plan(session)
    result = fold_confirmed(session, plan)
    merges = ", ".join(sha[:12] for sha in plan.merges)
    print(
        f"Folded {one_line(result.branch)} onto dev {plan.onto[:12]}: merges of dev {merges} "
        f"dropped {_was(result)}"
    )
    return _verified(result)


def undo_command(args: argparse.Namespace) -> int:
    """``undo``: the branch back where syncdesk's last backup says it was."""
    session = _writer_session(args)
    target = undo_target(session)
    print(f"Restoring {one_line(target.branch)} to {target.backup.before[:12]} (it is at "
          f"{target.head[:12]}; nothing moves if that changes first)")  # fmt: skip
    result = undo_confirmed(session, target)
    print(f"Restored {undone_message(result)}")
    print(result.new_head)
    return 0


def rebuild_command(args: argparse.Namespace) -> int:
    """``rebuild --onto DEV``: the sync rebuilt on a new dev base, its resolutions carried."""
    session = _writer_session(args)
    store = ResolutionStore.open(session.git)
    result = rebuild_confirmed(session, None, args.onto, store)
    _print_rebuild(result)
    return _verified(result, *store.notes)


def push_command(args: argparse.Namespace) -> int:
    """``push``: the branch pushed with a lease, once the user (or ``--yes``) says so."""
    session = _writer_session(args)
    lease = push_lease(session)
    question = push_question(lease)
    if args.yes:
        print(question.replace("? ", ". ", 1))
    elif not _confirmed(question):
        print("Nothing was pushed.")
        return EXIT_ERROR
    # Exactly the commit and the lease that were shown: a branch that moved
    # while the question was open is refused, not pushed.
    result = push_confirmed(session, lease)
    print(result.message, file=sys.stdout if result.ok else sys.stderr)
    return 0 if result.ok else EXIT_ERROR


def _writer_session(args: argparse.Namespace) -> SyncSession:
    """The session on the branch to write; one that names no writable branch is refused."""
    # One resolver names the branch for every command (services/git/branches.py):
    # a local branch, origin/x, x when only the remote has it, or HEAD on a branch.
    options = replace(sync_options(args), head=args.branch or args.head)
    session = open_sync(options)
    writable_branch(session)  # raises, in one line, before anything is read or asked
    return session


def _confirmed(question: str) -> bool:
    """Whether the user answers yes to ``question`` (refused outright without a terminal)."""
    if not sys.stdin.isatty():
        raise ServiceError("push asks for confirmation: run it in a terminal, or pass --yes")
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in ("y", "yes")


def _print_plan(plan: RepairPlan) -> None:
    """The repair ``--preview`` shows: what it replaces, its message, diffs and checks."""
    what = (
        f"replaces {len(plan.replaces)} commit(s) on top of the merge, up to {plan.old_repair[:12]}"
        if plan.old_repair
        else "adds the first repair commit"
    )
    print(f"Repair of {one_line(plan.branch)} at {plan.old_head[:12]}: {what}")
    print(f"{len(plan.changes)} file(s) change; signed: {'yes' if plan.sign else 'no'}")
    print("\n--- commit message ---")
    print(visible(plan.message).rstrip("\n"))
    print("\n--- the new repair, against the merge ---")
    print(plan.diff_stat.rstrip("\n"))
    print("\n--- what changes against the previous repair ---")
    print(plan.diff_vs_old_repair.rstrip("\n"))
    if plan.checks:
        print("\n--- look before writing ---")
        for check in plan.checks:
            blocks = " [blocks --write; --despite-syntax-errors]" if check.blocking else ""
            print(f"{'error' if check.blocking else 'warning'}: {check.message}{blocks}")


def _print_rebuild(result: RebuildResult) -> None:
    """What a rebuild wrote, carried over and left behind."""
    print(
        f"Rebuilt {one_line(result.branch)} on {result.onto[:12]}: merge {result.new_merge[:12]}"
        f", head {result.new_head[:12]} {_was(result)}"
    )
    print(f"Carried: {len(result.carried_files)} file(s) whole, {result.carried_hunks} hunk(s)"
          f" of changed files, {len(result.evil_carried)} non-conflict change(s)")  # fmt: skip
    for label, paths in (
        ("Left to decide", result.left),
        ("Not carried (see the backup)", result.not_carried),
        ("Repair patch no longer applies to", result.repair_conflicts),
    ):
        if paths:
            print(f"{label}: " + ", ".join(visible(path) for path in paths))


def _was(result: WriteResult | RebuildResult) -> str:
    """``(was OLD; backup REF)``: where the branch was, and the backup that keeps it."""
    return f"(was {result.old_head[:12]}; backup {result.backup_ref})"


def _verified(result: WriteResult | RebuildResult, *notes: str) -> int:
    """Print a write's re-verification, its notes and the new head; exit 1 if it failed."""
    print("Anatomy: " + ("ok" if result.anatomy_ok else "; ".join(result.problems) or "not ok"))
    tree = "verified" if result.tree_verified else "DIFFERS from the tree that was planned"
    print(f"Tree: {tree}")
    print(f"Patch: {result.patch_note}")
    for note in (result.note, *notes):
        _print_note(note)
    print(result.new_head)
    return 0 if result.anatomy_ok and result.tree_verified else EXIT_ERROR


def _print_note(note: str) -> None:
    """``note: ...`` on stderr, when there is a note."""
    if note:
        print(f"note: {note}", file=sys.stderr)
