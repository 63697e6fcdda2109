"""``syncdesk learn <ref>``: remember how an earlier sync branch resolved its conflicts.

rerere learns whole files, from the merge commit alone, and would learn the
markers in our layout (the merge keeps the conflict, the repair fixes it).
Here each conflict is re-merged from the sync merge's parents and paired with
the branch's *head* (merge + repair), and every hunk the head resolved is
stored under its hunk key, every file under its file key. The workspace then
offers them as suggestions with their provenance; nothing is applied silently.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.conflicts.models import ConflictFile, Resolution
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.decisions.learned import Provenance, approved_in, learned_from
from syncdesk.services.decisions.models import Action
from syncdesk.services.errors import MissingRefError, ServiceError
from syncdesk.services.git.runner import Git
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.anatomy import find_sync_merge

# How the head resolved a hunk, as the action a maintainer would have taken.
_ACTIONS: dict[Resolution, Action] = {
    "dev": Action.DEV,
    "main": Action.MAIN,
    "union": Action.UNION,
    "base": Action.BASE,
    "custom": Action.EDITED,
}


@dataclass(frozen=True, slots=True)
class Learned:
    """What one learning pass stored."""

    ref: str
    hunks: int
    files: int
    skipped: int  # conflicts left unresolved at that head: nothing to learn


def learn_branch(git: Git, ref: str, dev: str, main: str, store: ResolutionStore) -> Learned:
    """Store every resolution the sync branch ``ref`` made (its merge plus its repair)."""
    head = git.resolve(ref)
    if head is None:
        raise MissingRefError(f"no branch or commit named {ref!r}")
    merge = find_sync_merge(git, head, dev, main)
    if merge is None:
        raise ServiceError(f"{one_line(ref)} has no sync merge (parent 1 on dev, parent 2 on main)")
    conflicts = read_conflicts(git, merge.dev_base, merge.slice_tip, head)
    return remember(store, conflicts.files, learned_from(one_line(ref)), ref)


def remember(
    store: ResolutionStore, files: tuple[ConflictFile, ...], provenance: Provenance, ref: str
) -> Learned:
    """Record the resolutions at the head of ``files`` in ``store``, in one transaction."""
    hunks = stored_files = skipped = 0
    with store.batch():
        for conflict in files:
            if conflict.resolution == "unresolved":
                skipped += 1
                continue
            for hunk in conflict.hunks:
                if hunk.head is None or hunk.resolution == "unresolved":
                    continue
                action = _ACTIONS.get(hunk.resolution)
                store.record_hunk(hunk.key, hunk.head, provenance, action=action)
                hunks += 1
            if conflict.head_blob is not None or conflict.resolution == "deleted":
                action = Action.DELETED if conflict.head_blob is None else None
                store.record_file(conflict.file_key, conflict.head_blob, provenance, action=action)
                stored_files += 1
    return Learned(one_line(ref), hunks, stored_files, skipped)


def remember_approval(
    store: ResolutionStore,
    conflict: ConflictFile,
    results: list[tuple[str, ...]],
    branch: str,
) -> int:
    """Learn the hunks of an approved file as the maintainer resolved them; the count stored."""
    provenance = approved_in(one_line(branch))
    stored = 0
    with store.batch():
        for hunk, lines in zip(conflict.hunks, results, strict=True):
            if lines != hunk.conflict:  # never learn the markers themselves
                store.record_hunk(hunk.key, lines, provenance)
                stored += 1
    return stored
