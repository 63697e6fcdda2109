"""Rebuild a sync on a new dev base: the same slice, every earlier hand resolution carried over.

The sync branch ``dev_base + slice -> merge -> repair`` becomes
``onto + slice -> merge' -> repair'``, all with plumbing, never touching the
work tree, the index or HEAD:

1. ``merge-tree --write-tree onto slice_tip``: the new automatic merge (its
   objects are written to the repository: they become the new merge's).
2. The old merge's hand work is carried into it (:mod:`syncdesk.services.write.carry`):
   identical conflicts whole, changed ones hunk by hunk (the rest keeps its
   markers and is listed as ``left``), non-conflict changes by a three-way merge.
3. ``merge'`` is committed with parents ``onto`` and the slice tip, the old
   merge's author and message, and the maintainer's sign-off.
4. The old repair's patch (old merge -> old head) is re-applied on ``merge'``
   (:mod:`syncdesk.services.conflicts.threeway`, a cherry-pick in trees); a file where it no
   longer applies keeps ``merge'``'s version and is reported.
5. The branch moves with a compare-and-swap after a backup
   (:func:`syncdesk.services.git.refs.move_branch`); the result is re-verified (anatomy,
   tree) and the new repair's patch id compared with the old one's.

With a :class:`~syncdesk.services.decisions.carryover.ResolutionStore`, the old head's
resolutions are learned first, so the workspace suggests them for what is left.
"""

from __future__ import annotations

from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.conflicts.threeway import three_way
from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.decisions.learn import remember
from syncdesk.services.decisions.learned import learned_from
from syncdesk.services.errors import (
    BranchMovedError,
    MissingRefError,
    NothingToDoError,
    ServiceError,
)
from syncdesk.services.git.commit import (
    CommitInfo,
    create_commit,
    maintainer,
    read_commit,
    should_sign,
    with_signoff,
)
from syncdesk.services.git.refs import read_target
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import clean_scratch, tree_of
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.anatomy import SyncMerge
from syncdesk.services.write.carry import carry_merge
from syncdesk.services.write.checkout import require_clean_checkouts
from syncdesk.services.write.landing import Target, land, remerge, sync_merge_to_rewrite
from syncdesk.services.write.message import repair_message
from syncdesk.services.write.models import RebuildResult
from syncdesk.services.write.patchid import PatchComparison, compare_patches


def rebuild_onto(
    git: Git,
    branch: str,
    onto: str,
    *,
    dev: str,
    main: str,
    store: ResolutionStore | None = None,
    signoff: bool = True,
    tracking: str | None = None,
    expected_head: str | None = None,
) -> RebuildResult:
    """Rebuild ``branch``'s sync on the dev commit ``onto`` and move the branch to it.

    ``tracking``: the remote-tracking ref the sync was named by; with no local
    ``branch`` yet, it is created. ``expected_head``: the head the user
    confirmed; the rebuild is refused (nothing changed) if the branch is
    elsewhere. A checkout of the branch must be clean and follows the new head
    (services/write/checkout.py).
    """
    clean_scratch(git)
    short, ref, old_head, creates = read_target(git, branch, tracking)
    if expected_head is not None and old_head != expected_head:
        raise BranchMovedError(
            f"{one_line(short)} moved since you confirmed: it is at {old_head[:12]}, "
            f"expected {expected_head[:12]}; nothing was changed"
        )
    places = require_clean_checkouts(git, ref, short)
    target = Target(short, ref, old_head, creates, tracking, places)
    merge = sync_merge_to_rewrite(
        git, short, old_head, dev, main,
        none="to rebuild",
        way_out="fold it first (syncdesk fold: one merge on the newest dev plus one repair, "
        "the same files), then rebuild onto a newer dev",
    )  # fmt: skip
    onto_sha = _onto(git, onto, dev, merge)
    learned = _learn(store, git, merge, old_head, short) if store is not None else 0
    carried = carry_merge(git, merge.dev_base, merge.slice_tip, merge.sha, onto_sha)
    new, conflicts, changes = carried.new, carried.conflicts, carried.changes
    ident = maintainer(git) if signoff else None
    sign = should_sign(git)
    new_merge = remerge(
        git, merge.sha, changes.tree, (onto_sha, merge.slice_tip), signoff=ident, sign=sign
    )
    new_head, expected_tree = new_merge, changes.tree
    repair_conflicts: tuple[str, ...] = ()
    if merge.on_top:
        applied = three_way(git, tree_of(git, merge.sha), changes.tree, tree_of(git, old_head))
        repairs = [read_commit(git, sha) for sha in merge.on_top]
        new_head = create_commit(
            git,
            applied.tree,
            (new_merge,),
            _repair_message(git, repairs, short, ident),
            author=repairs[0].author,
            sign=sign,
        )
        expected_tree, repair_conflicts = applied.tree, applied.conflicted
    landed = land(
        git, target, new_head, f"rebuild {short} onto {onto_sha[:12]}",
        expected_tree=expected_tree, dev=dev, main=main, expect_repair=bool(merge.on_top),
    )  # fmt: skip
    patch = _compare(git, merge, old_head, new_merge, new_head)
    return RebuildResult(
        branch=short,
        old_head=old_head,
        new_head=new_head,
        new_merge=new_merge,
        onto=onto_sha,
        backup_ref=landed.backup_ref,
        carried_files=conflicts.files,
        carried_hunks=conflicts.hunks,
        left=_left(git, new, new_head, conflicts.uncovered),
        evil_carried=changes.carried,
        not_carried=changes.not_carried,
        repair_conflicts=repair_conflicts,
        anatomy_ok=landed.anatomy_ok,
        problems=landed.problems,
        tree_verified=landed.tree_verified,
        patch_id_same=patch.same,
        patch_note=patch.note,
        learned_hunks=learned,
        checked_out_in=places,
        note=landed.note,
    )


def _onto(git: Git, onto: str, dev: str, merge: SyncMerge) -> str:
    sha = git.resolve(onto)
    if sha is None:
        raise MissingRefError(f"no commit named {one_line(onto)!r} to rebuild onto")
    if sha == merge.dev_base:
        raise NothingToDoError(f"nothing to rebuild: the sync is already based on {sha[:12]}")
    if not git.is_ancestor(sha, dev):
        raise ServiceError(
            f"{one_line(onto)} ({sha[:12]}) is not on dev: a sync merge's parent 1 "
            "must be a dev commit; nothing was changed"
        )
    return sha


def _learn(store: ResolutionStore, git: Git, merge: SyncMerge, head: str, branch: str) -> int:
    """Store the old head's resolutions (merge and repair) as suggestions."""
    at_head = read_conflicts(git, merge.dev_base, merge.slice_tip, head)
    where = f"{branch}@{head[:12]}"
    return remember(store, at_head.files, learned_from(where), where).hunks


def _repair_message(git: Git, repairs: list[CommitInfo], branch: str, ident: str | None) -> str:
    """The old repair's message (several: the first's, listing the others), signed off."""
    if len(repairs) == 1:
        message = repairs[0].message
        return with_signoff(message, ident) if ident else message
    squashed = [(c.sha, c.subject) for c in repairs[1:]]
    return repair_message(git, repairs[0].message, branch, (), squashed=squashed, signoff=ident)


def _compare(
    git: Git, merge: SyncMerge, old_head: str, new_merge: str, new_head: str
) -> PatchComparison:
    if not merge.on_top:
        return PatchComparison(None, "no repair commit to re-apply")
    return compare_patches(git, (merge.sha, old_head), (new_merge, new_head))


def _left(git: Git, new: ConflictSet, head: str, uncovered: tuple[str, ...]) -> tuple[str, ...]:
    """The new conflicts not carried, and those still unresolved at the new head."""
    at_head = read_conflicts(git, new.dev_side, new.main_side, head)
    unresolved = {
        conflict.path
        for conflict in at_head.files
        if conflict.resolution == "unresolved"
        or any(hunk.resolution == "unresolved" for hunk in conflict.hunks)
    }
    return tuple(sorted(unresolved | set(uncovered)))
