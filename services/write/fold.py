"""Fold dev merged on top: the same files, as one merge on the newest dev plus one repair.

When dev was merged into the sync branch after the sync merge (8 of 36 real
Megatron-LM syncs), the branch is merge + repairs + merges of dev: no single
repair to write into. Folding rebuilds that shape without changing a byte of
the result:

- the new sync merge has parent 1 the newest dev commit the head holds
  (:attr:`Ours.dev <syncdesk.services.sync.ours.Ours.dev>`, so it brings no dev
  commit the branch did not already hold) and parent 2 the same slice tip;
- its tree carries the old merge's hand resolutions (as a rebuild does:
  :mod:`syncdesk.services.write.carry`); a conflict the old merge never met (dev's
  later change against main's) was resolved by a merge of dev on top, so the
  head's version of that file is its resolution;
- one repair commit on it holds exactly the head's tree: everything ours (the
  repairs, the merges' own resolutions) in one commit, and the merges of dev
  are gone from the history because their dev commits are in the new dev base.

The tree of the new head is verified equal to the old head's: nothing is lost
or added. Refused, before anything is written, when a merge on top brought a
commit dev does not hold (a *stray*: folding it would put it into our repair).
The branch moves by compare-and-swap after a backup, like every write, and
``undo`` restores it.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.errors import BranchMovedError, NothingToDoError, ServiceError
from syncdesk.services.git.commit import (
    create_commit,
    maintainer,
    read_commit,
    should_sign,
    split_trailers,
    with_signoff,
)
from syncdesk.services.git.refs import read_target
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import clean_scratch, tree_of
from syncdesk.services.sanitize import one_line, visible
from syncdesk.services.sync.ours import sync_ours
from syncdesk.services.write.carry import carry_merge
from syncdesk.services.write.checkout import require_clean_checkouts
from syncdesk.services.write.landing import Target, land, remerge, sync_merge_to_rewrite, written
from syncdesk.services.write.message import default_message
from syncdesk.services.write.models import WriteResult


@dataclass(frozen=True, slots=True)
class FoldPlan:
    """What folding would do, read without writing anything."""

    branch: str
    ref: str
    old_head: str
    merge: str  # the sync merge
    dev_base: str  # its parent 1
    slice_tip: str  # its parent 2
    onto: str  # the newest dev commit the head holds: the new merge's parent 1
    merges: tuple[str, ...]  # the merges of dev on top, dropped
    repairs: tuple[str, ...]  # our other commits on top, squashed into the one repair
    dev: str
    main: str
    tracking: str | None = None  # the remote-tracking ref a created local branch starts from
    creates: bool = False


def plan_fold(
    git: Git, branch: str, *, dev: str, main: str, tracking: str | None = None
) -> FoldPlan:
    """Read what folding ``branch``'s merges of dev would do; nothing moves.

    Raises :class:`NothingToDoError` when no merge sits on top of the sync
    merge, and a :class:`ServiceError` when one brought a commit dev does not hold.
    """
    clean_scratch(git)
    short, ref, head, creates = read_target(git, branch, tracking)
    merge = sync_merge_to_rewrite(git, short, head, dev, main, none="to fold onto", way_out=None)
    if not merge.merges_on_top:
        raise NothingToDoError(f"nothing to fold: no merge sits on top of {one_line(short)}'s sync")
    ours = sync_ours(git, head, merge.sha, merge.dev_base, dev)
    if ours.strays:
        raise ServiceError(
            f"the merges on top of {one_line(short)} brought {len(ours.strays)} commit(s) dev "
            f"does not hold (first {ours.strays[0][:12]}): folding would put them into the "
            "repair; nothing was changed"
        )
    return FoldPlan(
        branch=short,
        ref=ref,
        old_head=head,
        merge=merge.sha,
        dev_base=merge.dev_base,
        slice_tip=merge.slice_tip,
        onto=ours.dev,
        merges=ours.merges,
        repairs=ours.repairs,
        dev=dev,
        main=main,
        tracking=tracking if creates else None,
        creates=creates,
    )


def fold_question(plan: FoldPlan) -> str:
    """The confirmation of a fold, saying what changes and what does not."""
    merges = ", ".join(sha[:12] for sha in plan.merges)
    repairs = f" and {len(plan.repairs)} repair commit(s)" if plan.repairs else ""
    return (
        f"Rebuild {one_line(plan.branch)} ({plan.old_head[:12]}) as one sync merge on dev "
        f"{plan.onto[:12]}, the newest dev it holds, plus one repair? The merges of dev "
        f"({merges}){repairs} are folded into that repair: the files stay exactly as they "
        "are (verified), a backup is kept, and undo restores the branch."
    )


def fold_merges(git: Git, plan: FoldPlan, *, signoff: bool = True) -> WriteResult:
    """Write the folded shape and move the branch to it (compare-and-swap, backup).

    Raises :class:`BranchMovedError` (nothing changed) when the branch moved
    since the plan, and ``LocalChangesError`` when it is checked out with
    local changes (services/write/checkout.py).
    """
    clean_scratch(git)
    short, ref, head, creates = read_target(git, plan.ref, plan.tracking)
    if head != plan.old_head or creates != plan.creates:
        raise BranchMovedError(
            f"{one_line(short)} moved since it was read: it is at {head[:12]}, expected "
            f"{plan.old_head[:12]}; nothing was changed"
        )
    places = require_clean_checkouts(git, ref, short)
    target = Target(short, ref, head, plan.creates, plan.tracking, places)
    head_tree = tree_of(git, head)
    # The old resolutions carried; what the old merge never met was resolved on
    # top, by a merge of dev: the head's version is that resolution (no conflict
    # markers go into a commit).
    merge_tree_id = carry_merge(
        git, plan.dev_base, plan.slice_tip, plan.merge, plan.onto, uncovered_from=head
    ).changes.tree
    ident = maintainer(git) if signoff else None
    sign = should_sign(git)
    new_merge = remerge(
        git, plan.merge, merge_tree_id, (plan.onto, plan.slice_tip), signoff=ident, sign=sign
    )
    new_head = new_merge
    if merge_tree_id != head_tree:
        first = read_commit(git, plan.repairs[0]) if plan.repairs else None
        new_head = create_commit(
            git,
            head_tree,
            (new_merge,),
            _repair_message(git, plan, first.message if first else None, ident),
            author=first.author if first else None,
            sign=sign,
        )
    landed = land(
        git, target, new_head, f"fold the merges of dev on {short} onto {plan.onto[:12]}",
        expected_tree=head_tree, dev=plan.dev, main=plan.main,
        expect_repair=new_head != new_merge,
    )  # fmt: skip
    same = "the files are the old head's, byte for byte" if landed.tree_verified else ""
    return written(target, new_head, landed, None, same)


def _repair_message(git: Git, plan: FoldPlan, base: str | None, ident: str | None) -> str:
    """The first repair's message (or a new one), saying what was folded into it."""
    body, trailers = split_trailers(base or default_message(plan.branch))
    lines = [f"Folded by syncdesk onto dev {plan.onto[:12]}:"]
    lines += [f"- {sha[:12]} {_subject(git, sha)} (merge of dev, dropped)" for sha in plan.merges]
    lines += [f"- {sha[:12]} {_subject(git, sha)} (squashed)" for sha in plan.repairs[1:]]
    message = body.rstrip("\n") + "\n\n" + "\n".join(lines)
    if trailers:
        message += "\n\n" + trailers
    message += "\n"
    return with_signoff(message, ident) if ident else message


def _subject(git: Git, sha: str) -> str:
    return one_line(visible(read_commit(git, sha).subject))
