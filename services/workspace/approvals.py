"""How far the maintainer got: how many of the sync's conflicted files are approved.

The Slice screen says it ("3 of 11 files approved · W previews the repair"),
so that what comes next is on screen, not in the maintainer's memory. The
count is read from the saved decisions, the same ones the writer reads.
"""

from __future__ import annotations

from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.decisions.models import FileStatus, SyncKey
from syncdesk.services.decisions.store import load_state
from syncdesk.services.git.atomic import StorageError
from syncdesk.services.git.runner import Git


def approved_count(git: Git, conflicts: ConflictSet) -> int | None:
    """How many of ``conflicts``' files carry the maintainer's approval (0 when none saved).

    Read only: a sync with no saved state is not given one (``remember=False``).
    None when the saved decisions cannot be read (a read-only repository, say):
    the count is a hint, and a screen must not fail for want of it.
    """
    return approvals(git, conflicts)[0]


def approvals(git: Git, conflicts: ConflictSet) -> tuple[int | None, tuple[str, ...]]:
    """:func:`approved_count`, and what the user must hear about the saved decisions.

    Reading them may set a corrupt state aside: the first screen to read it
    (the Slice screen) must say so, or the workspace, reading after, finds
    nothing to say and the move goes unseen.
    """
    if not conflicts.files:
        return 0, ()
    key = SyncKey(conflicts.dev_side, conflicts.main_side)
    try:
        loaded = load_state(git, key, head=conflicts.head, remember=False)
    except StorageError as error:
        return None, (error.message,)
    state = loaded.state
    return sum(
        1 for conflict in conflicts.files
        if state.decisions(conflict.path).status is FileStatus.APPROVED
    ), (loaded.notes[:1] if loaded.moved_aside is not None else ())  # fmt: skip
