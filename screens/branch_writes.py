"""What the Slice screen says after a repair is written."""

from __future__ import annotations

from textual.notifications import SeverityLevel

from syncdesk.services.sanitize import one_line
from syncdesk.services.write.models import WriteResult


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
