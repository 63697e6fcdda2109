"""What every writer shares once its commits are made: the new merge, the landing, the check.

The three writers (repair, rebuild, fold) make different commits but end the
same way, so the steps live here once:

- :func:`remerge` writes a sync merge again on a new tree and parents, keeping
  the old merge's author and message (``git commit --amend`` would, too) and
  adding the maintainer's sign-off;
- :func:`land` moves the branch to the new head with a compare-and-swap after a
  backup (:func:`~syncdesk.services.git.refs.move_branch`), lets a clean checkout
  of the branch follow (:mod:`syncdesk.services.write.checkout`), and re-reads
  what was written (:func:`verify`);
- :func:`verify` reads the branch back: it is where it was moved, its anatomy
  holds (N originals, the merge, one repair or none) and its tree is the one planned.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.errors import ServiceError
from syncdesk.services.git.commit import create_commit, read_commit, with_signoff
from syncdesk.services.git.refs import move_branch
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import tree_of
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.anatomy import SyncMerge, check_anatomy, find_sync_merge
from syncdesk.services.sync.slice import main_line
from syncdesk.services.write.checkout import after_move
from syncdesk.services.write.models import WriteResult


@dataclass(frozen=True, slots=True)
class Target:
    """The branch a writer moves, as it was read: where it is and how to name it."""

    short: str  # the short name, e.g. main2dev/demo
    ref: str  # refs/heads/<short>
    old_head: str
    creates: bool  # no local branch yet: the write creates it from ``tracking``
    tracking: str | None
    places: tuple[str, ...]  # the work trees that have it checked out (all clean)


@dataclass(frozen=True, slots=True)
class Landed:
    """The branch moved: its backup, what the user should know, and what the re-read found."""

    backup_ref: str
    note: str
    anatomy_ok: bool
    problems: tuple[str, ...]
    tree_verified: bool


def sync_merge_to_rewrite(
    git: Git, branch: str, head: str, dev: str, main: str, *, none: str, way_out: str | None
) -> SyncMerge:
    """The sync merge under ``head``, for a writer to build on.

    Raises a :class:`ServiceError` when there is none (``none`` ends the line:
    what that means for this writer), or when a merge of dev sits above it and
    ``way_out`` (what to do first) is given; a writer that folds such merges
    passes None.
    """
    merge = find_sync_merge(git, head, dev, main)
    if merge is None:
        raise ServiceError(f"{one_line(branch)} has no sync merge {none}")
    if merge.merges_on_top and way_out is not None:
        raise ServiceError(
            f"merge {merge.merges_on_top[0][:12]} of dev sits on top of the sync merge of "
            f"{one_line(branch)}: {way_out}"
        )
    return merge


def remerge(
    git: Git,
    old_merge: str,
    tree: str,
    parents: tuple[str, str],
    *,
    signoff: str | None,
    sign: bool,
) -> str:
    """A new sync merge of ``tree`` on ``parents`` with ``old_merge``'s author and message.

    ``signoff``: the maintainer's ``Name <email>`` to add as ``Signed-off-by``
    (git's trailer rules: not twice), or None to keep the message as it is.
    """
    old = read_commit(git, old_merge)
    message = with_signoff(old.message, signoff) if signoff else old.message
    return create_commit(git, tree, parents, message, author=old.author, sign=sign)


def land(
    git: Git,
    target: Target,
    new_head: str,
    reason: str,
    *,
    expected_tree: str,
    dev: str,
    main: str,
    expect_repair: bool = True,
) -> Landed:
    """Move ``target`` to ``new_head`` (backup first, compare-and-swap), then read it back.

    ``reason`` goes into the reflog and the backup. Raises
    :class:`~syncdesk.services.errors.BranchMovedError` (nothing moved) when the
    branch is no longer at ``target.old_head``.
    """
    backup = move_branch(
        git, target.short, new_head, target.old_head, reason, create=target.creates
    )
    tracking = target.tracking if target.creates else None
    note = after_move(target.places, target.short, target.old_head, new_head, tracking)
    anatomy_ok, problems, tree_ok = verify(
        git, target.ref, new_head, expected_tree, dev, main, expect_repair=expect_repair
    )
    return Landed(backup, note, anatomy_ok, problems, tree_ok)


def written(
    target: Target, new_head: str, landed: Landed, same: bool | None, patch_note: str
) -> WriteResult:
    """What a write that moved ``target`` to ``new_head`` reports."""
    return WriteResult(
        branch=target.short,
        old_head=target.old_head,
        new_head=new_head,
        backup_ref=landed.backup_ref,
        anatomy_ok=landed.anatomy_ok,
        problems=landed.problems,
        tree_verified=landed.tree_verified,
        patch_id_same=same,
        patch_note=patch_note,
        checked_out_in=target.places,
        note=landed.note,
    )


def verify(
    git: Git,
    ref: str,
    new_head: str,
    expected_tree: str,
    dev: str,
    main: str,
    *,
    expect_repair: bool = True,
) -> tuple[bool, tuple[str, ...], bool]:
    """Re-read what was written: ``(anatomy ok, problems, tree verified)``."""
    now = git.run(["rev-parse", "--verify", "--quiet", ref], check=False).text.strip()
    problems: list[str] = []
    if now != new_head:
        problems.append(f"the branch is at {now[:12] or 'nothing'}, not at {new_head[:12]}")
    merge = find_sync_merge(git, new_head, dev, main)
    line = main_line(git, merge.dev_base, main) if merge is not None else []
    anatomy = check_anatomy(new_head, merge, line)
    problems.extend(problem.message for problem in anatomy.problems)
    shape = (anatomy.repair == new_head) if expect_repair else (anatomy.merge == new_head)
    if merge is not None and not shape:
        expected = "exactly one repair" if expect_repair else "no commit"
        problems.append(f"expected {expected} on top of the merge, found {len(anatomy.on_top)}")
    tree_ok = now == new_head and tree_of(git, new_head) == expected_tree
    return anatomy.ok and shape, tuple(problems), tree_ok
