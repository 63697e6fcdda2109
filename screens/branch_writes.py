"""What the Slice screen asks before a write, an undo or a push, and what it says after."""

from __future__ import annotations

from textual.notifications import SeverityLevel

from services.repair_models import UndoResult, WriteResult
from services.sanitize import one_line
from services.session_writes import Lease, UndoTarget


def written_message(result: WriteResult) -> tuple[str, SeverityLevel]:
    """The notification after a write: where the branch went and how it checked out."""
    lines = [
        f"{one_line(result.branch)}: {result.old_head[:12]} → {result.new_head[:12]} "
        f"(backup {one_line(result.backup_ref)})",
        "Anatomy ok" if result.anatomy_ok else "Anatomy: " + "; ".join(result.problems),
        "Tree verified" if result.tree_verified else "The tree DIFFERS from the planned tree",
        f"Patch: {result.patch_note}",
    ]
    if result.note:
        lines.append(result.note)
    good = result.anatomy_ok and result.tree_verified
    return "\n".join(lines), "warning" if result.note or not good else "information"


def undo_question(target: UndoTarget) -> str:
    """The confirmation of an undo, naming both commits."""
    return (
        f"Restore {one_line(target.branch)} to {target.backup.before[:12]}, where it was "
        f"before syncdesk's last write? It is now at {target.head[:12]}; a new backup keeps "
        "that, so undo again brings it back."
    )


def undone_message(result: UndoResult) -> str:
    """The notification after an undo."""
    return (
        f"{one_line(result.branch)}: {result.old_head[:12]} → {result.new_head[:12]} "
        f"(the undone head is kept in {one_line(result.backup_ref)})"
    )


def push_question(lease: Lease) -> str:
    """The confirmation of a push, naming the commit it replaces on the remote."""
    replacing = lease.expected[:12] if lease.expected else "nothing (a new branch there)"
    return (
        f"Push {one_line(lease.branch)} ({lease.head[:12]}) to {one_line(lease.remote)}, "
        f"replacing {replacing}? The push is refused if the remote's branch is no longer "
        "at that commit."
    )
