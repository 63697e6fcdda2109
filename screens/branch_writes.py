"""What the Slice screen says after a repair is written or the sync rebuilt."""

from __future__ import annotations

from textual.notifications import SeverityLevel

from syncdesk.services.sanitize import one_line, visible
from syncdesk.services.write.models import RebuildResult, WriteResult


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


def rebuilt_message(result: RebuildResult) -> tuple[str, SeverityLevel]:
    """The notification after a rebuild on a new dev base: what was carried, what is left."""
    lines = [
        f"{one_line(result.branch)}: {result.old_head[:12]} → {result.new_head[:12]} on dev "
        f"{result.onto[:12]} (backup {one_line(result.backup_ref)})",
        f"Carried: {len(result.carried_files)} file(s) whole, {result.carried_hunks} hunk(s)",
    ]
    for label, paths in (
        ("Left to decide (c)", result.left),
        ("Not carried (see the backup)", result.not_carried),
        ("Repair patch no longer applies to", result.repair_conflicts),
    ):
        if paths:
            shown = ", ".join(visible(path) for path in paths[:5])
            more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
            lines.append(f"{label}: {shown}{more}")
    lines.append("Anatomy ok" if result.anatomy_ok else "Anatomy: " + "; ".join(result.problems))
    if result.note:
        lines.append(result.note)
    good = result.anatomy_ok and not (result.left or result.not_carried or result.repair_conflicts)
    return "\n".join(lines), "information" if good and not result.note else "warning"
