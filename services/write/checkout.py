"""A written branch that is checked out stays consistent with its work tree.

Moving a branch with ``update-ref`` leaves the index and files of every work
tree that has it checked out at the old commit: ``git status`` then shows a
staged change that reverses the write, and a hurried ``git commit -a`` would
undo it silently. So a write checks every such work tree *before* it writes:

- with any local change (staged, unstaged, or an unmerged path), the write is
  refused, naming the work tree, before any object or ref is made;
- clean, the write goes ahead and then brings that work tree along with git's
  own two-way merge, ``git read-tree -m -u OLD NEW``: what ``git checkout``
  does, which refuses rather than overwrite anything (an untracked file in the
  way, say). If it refuses, the branch has still moved (the write's
  compare-and-swap already happened) and the note says what to run.

Untracked files are not local changes here, as for ``git checkout``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from syncdesk.services.errors import ServiceError
from syncdesk.services.git.refs import checked_out_in, list_backups
from syncdesk.services.git.runner import Git, first_line
from syncdesk.services.sanitize import one_line


class LocalChangesError(ServiceError):
    """The branch to write is checked out with local changes; nothing was written."""

    title = "Local changes"


def require_clean_checkouts(git: Git, ref: str, branch: str) -> tuple[str, ...]:
    """The work trees that have ``ref`` checked out, each verified clean.

    A checkout left exactly at the commit syncdesk's last move of the branch
    started from (a write killed between the move and the update) is not a
    local change: it is brought up to the branch first. Raises
    :class:`LocalChangesError` when one has local changes.
    """
    places = checked_out_in(git, ref)
    backups = list_backups(git, branch) if places else []
    last = backups[-1] if backups else None
    head = git.resolve(ref)
    for place in places:
        worktree = Git(Path(place))
        dirty = _has_local_changes(worktree)
        if dirty and last is not None and last.after == head and _left_at(worktree, last.before):
            worktree.run(["read-tree", "-m", "-u", last.before, "HEAD"], check=False)
            dirty = _has_local_changes(worktree)
        if dirty:
            raise LocalChangesError(
                f"{one_line(branch)} is checked out in {one_line(place)} with local changes: "
                "a write would leave them on the old commit; commit or stash them there "
                "(git stash), then write again. Nothing was written"
            )
    return places


def follow_checkouts(places: Sequence[str], branch: str, old: str, new: str) -> str:
    """Bring each (clean) work tree of ``places`` from ``old`` to ``new``; a note if one refused."""
    refused = []
    for place in places:
        worktree = Git(Path(place))
        result = worktree.run(["read-tree", "-m", "-u", old, new], check=False)
        if result.status != 0:
            refused.append(f"{one_line(place)} ({one_line(first_line(result.stderr))})")
    if not refused:
        return ""
    return (
        f"{one_line(branch)} moved, but git refused to update its files in "
        f"{'; '.join(refused)}: they are still at {old[:12]}; run `git read-tree -m -u "
        f"{old[:12]} HEAD` there once the way is clear"
    )


def after_move(
    places: Sequence[str], branch: str, old: str, new: str, created_from: str | None = None
) -> str:
    """Follow the checkouts of a branch just moved; what the user must hear, or "".

    ``created_from``: the remote-tracking ref a branch created by the move
    started from (the write says it made the local branch).
    """
    note = follow_checkouts(places, branch, old, new)
    if created_from is None:
        return note
    created = f"created the local branch {one_line(branch)} (it was only {one_line(created_from)})"
    return f"{created}; {note}" if note else created


def _left_at(worktree: Git, commit: str) -> bool:
    """Whether the index and the files are exactly ``commit``'s (a move left them behind)."""
    staged = worktree.run(["diff-index", "--quiet", "--cached", commit, "--"], check=False)
    unstaged = worktree.run(["diff-files", "--quiet"], check=False)
    return staged.status == 0 and unstaged.status == 0


def _has_local_changes(worktree: Git) -> bool:
    """Whether the index or the files differ from HEAD (``git diff --quiet`` both ways)."""
    # Refresh the index's stat data first, or a touched-but-unchanged file reads as changed.
    worktree.run(["update-index", "-q", "--refresh"], check=False)
    staged = worktree.run(["diff-index", "--quiet", "--cached", "HEAD", "--"], check=False)
    unstaged = worktree.run(["diff-files", "--quiet"], check=False)
    return staged.status != 0 or unstaged.status != 0
