"""Write approved files into the sync's one repair commit: plan (the preview), then write.

:func:`plan_repair` computes everything the preview shows, the new tree
included, without moving any ref: the head's tree plus the changes, built in
a temporary index (:mod:`syncdesk.services.git.trees`). :func:`write_repair` then makes
the commit (parent: the sync merge; the replaced repair's author and message
kept, the maintainer's sign-off added, signed if ``commit.gpgSign`` says so),
moves the branch with a compare-and-swap after a backup
(:mod:`syncdesk.services.git.refs`), and re-reads the repository to verify the result:
the anatomy (N originals + merge + exactly one repair), the tree, and the
patch id against the previous repair.

The user's work tree, index and HEAD are never touched, but a clean checkout
of the branch written, which follows the write (:mod:`syncdesk.services.write.checkout`);
a checkout with local changes refuses the write before anything is made.

Several commits on top of the merge are folded into the one repair (the
anatomy's rule), their subjects listed in its message; a *merge* of dev on top
is refused here, with the way out: :mod:`syncdesk.services.write.fold` rebuilds
the branch as one merge on the newest dev plus one repair, the same files.
"""

from __future__ import annotations

from collections.abc import Sequence

from syncdesk.services.errors import BranchMovedError, NothingToDoError, ServiceError
from syncdesk.services.git.commit import (
    create_commit,
    maintainer,
    read_commit,
    should_sign,
    with_signoff,
)
from syncdesk.services.git.refs import read_target
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_blob
from syncdesk.services.git.trees import (
    FILE_MODES,
    GITLINK,
    Entry,
    build_tree,
    check_path,
    clean_scratch,
    entries_at,
    tree_of,
)
from syncdesk.services.sanitize import one_line, visible
from syncdesk.services.sync.anatomy import SyncMerge
from syncdesk.services.write.checkout import require_clean_checkouts
from syncdesk.services.write.landing import Target, land, sync_merge_to_rewrite, written
from syncdesk.services.write.message import repair_message
from syncdesk.services.write.models import FileChange, RepairPlan, WriteResult
from syncdesk.services.write.patchid import compare_patches

PATCH_LIMIT = 256 * 1024  # bytes of patch text in a preview
_DIFF = ["diff-tree", "-r", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"]


def plan_repair(
    git: Git,
    branch: str,
    changes: Sequence[FileChange],
    *,
    dev: str,
    main: str,
    signoff: bool = True,
    tracking: str | None = None,
) -> RepairPlan:
    """What writing ``changes`` into ``branch``'s repair would do; no ref moves.

    ``tracking``: the remote-tracking ref the sync was named by; with no local
    ``branch`` yet, the write creates it from there. Raises
    :class:`NothingToDoError` when the repair would not change, and a
    :class:`ServiceError` when the branch has no sync merge or a merge on top.
    """
    clean_scratch(git)
    short, ref, head, creates = read_target(git, branch, tracking)
    merge = _sync_merge(git, short, head, dev, main)
    edits, written = _edits(git, head, changes)
    new_tree = build_tree(git, head, edits)
    head_tree, merge_tree = tree_of(git, head), tree_of(git, merge.sha)
    if (merge.on_top and len(merge.on_top) == 1 and new_tree == head_tree) or (
        not merge.on_top and new_tree == merge_tree
    ):
        raise NothingToDoError(
            f"nothing to write: the repair of {one_line(short)} already holds every change"
        )
    replaced = [read_commit(git, sha) for sha in merge.on_top]
    first = replaced[0] if replaced else None
    message = repair_message(
        git,
        first.message if first else None,
        short,
        written,
        squashed=[(c.sha, c.subject) for c in replaced[1:]],
        signoff=maintainer(git) if signoff else None,
    )
    return RepairPlan(
        branch=short,
        ref=ref,
        old_head=head,
        merge=merge.sha,
        old_repair=head if merge.on_top else None,
        new_tree=new_tree,
        message=message,
        changes=tuple(c for c in _last_per_path(changes) if c.path in edits),
        diff_stat=diff_stat(git, merge_tree, new_tree),
        diff_vs_old_repair=diff_text(git, head_tree, new_tree),
        replaces=merge.on_top,
        dev=dev,
        main=main,
        author=first.author if first else None,
        sign=should_sign(git),
        tracking=tracking if creates else None,
        creates=creates,
    )


def plan_signoff(
    git: Git, branch: str, *, dev: str, main: str, tracking: str | None = None
) -> RepairPlan:
    """Re-sign the repair: the same tree, its message with the maintainer's ``Signed-off-by``.

    This is how a DCO failure of *our* commit is fixed (the merge is immutable
    once pushed, and the imported commits keep their SHAs). Raises
    :class:`NothingToDoError` when the repair already carries that sign-off,
    and a :class:`ServiceError` when there is no single repair commit to re-sign.
    """
    clean_scratch(git)
    short, ref, head, creates = read_target(git, branch, tracking)
    merge = _sync_merge(git, short, head, dev, main)
    if len(merge.on_top) != 1:
        what = "no repair commit" if not merge.on_top else f"{len(merge.on_top)} commits"
        raise ServiceError(
            f"{one_line(short)} has {what} on the merge: write the repair first (W), "
            "it is signed off when written"
        )
    repair = read_commit(git, head)
    message = with_signoff(repair.message, maintainer(git))
    if message.rstrip("\n") == repair.message.rstrip("\n"):
        raise NothingToDoError(
            f"nothing to write: the repair of {one_line(short)} is already signed off by you"
        )
    tree = tree_of(git, head)
    return RepairPlan(
        branch=short,
        ref=ref,
        old_head=head,
        merge=merge.sha,
        old_repair=head,
        new_tree=tree,
        message=message,
        changes=(),
        diff_stat=diff_stat(git, tree_of(git, merge.sha), tree),
        diff_vs_old_repair="(the same files: only the message gains a Signed-off-by)\n",
        replaces=merge.on_top,
        dev=dev,
        main=main,
        author=repair.author,
        sign=should_sign(git),
        tracking=tracking if creates else None,
        creates=creates,
    )


def write_repair(git: Git, plan: RepairPlan) -> WriteResult:
    """Write the planned repair commit and move the branch to it, then verify.

    Raises :class:`BranchMovedError` (nothing changed) if the branch is no
    longer where the plan read it, and :class:`LocalChangesError` (nothing
    changed) if it is checked out with local changes; a clean checkout of it
    follows the new commit (services/write/checkout.py).
    """
    clean_scratch(git)
    short, ref, head, creates = read_target(git, plan.ref, plan.tracking)
    if creates != plan.creates:
        raise BranchMovedError(
            f"the local branch {one_line(short)} was "
            f"{'deleted' if creates else 'created'} since the preview; nothing was changed"
        )
    if head != plan.old_head:
        raise BranchMovedError(
            f"{one_line(short)} moved since it was read: it is at {head[:12]}, "
            f"expected {plan.old_head[:12]}; nothing was changed"
        )
    if git.run(["cat-file", "-e", f"{plan.new_tree}^{{tree}}"], check=False).status != 0:
        raise ServiceError("the planned tree is no longer in the repository: preview again")
    places = require_clean_checkouts(git, ref, short)
    target = Target(short, ref, plan.old_head, plan.creates, plan.tracking, places)
    new_head = create_commit(
        git, plan.new_tree, (plan.merge,), plan.message, author=plan.author, sign=plan.sign
    )
    paths = ", ".join(visible(change.path) for change in plan.changes[:3]) or "squash"
    landed = land(
        git, target, new_head, f"repair {short}: {paths}",
        expected_tree=plan.new_tree, dev=plan.dev, main=plan.main,
    )  # fmt: skip
    previous = (plan.merge, plan.old_head) if plan.replaces else None
    patch = compare_patches(git, previous, (plan.merge, new_head))
    return written(target, new_head, landed, patch.same, patch.note)


def diff_stat(git: Git, old: str, new: str) -> str:
    """``--stat`` of ``old`` -> ``new`` (trees or commits), control characters made visible."""
    return visible(git.run([*_DIFF, "--stat=100", "--summary", old, new]).text)


def diff_text(git: Git, old: str, new: str, limit: int = PATCH_LIMIT) -> str:
    """``--stat`` and patch of ``old`` -> ``new``, cut after ``limit`` bytes at a line end.

    A file over the large-file limit shows as "Binary files differ": git treats
    a blob over ``core.bigFileThreshold`` as binary, so its patch is never made.
    """
    big = f"core.bigFileThreshold={git.large_file_limit}"
    out = git.run(["-c", big, *_DIFF, "-p", "--stat=100", old, new]).stdout
    if len(out) > limit:
        cut = out.rfind(b"\n", 0, limit) + 1
        out = out[:cut] + (
            f"[... {len(out) - cut} more bytes: git diff {old[:12]} {new[:12]}]\n".encode()
        )
    return visible(out.decode("utf-8", errors="replace"))


def _sync_merge(git: Git, branch: str, head: str, dev: str, main: str) -> SyncMerge:
    """The sync merge to write a repair on; none, or a merge of dev above it, is refused."""
    return sync_merge_to_rewrite(
        git, branch, head, dev, main,
        none="(parent 1 on dev, parent 2 on main): there is no repair to write",
        way_out="rebuild it first as one merge on the newest dev plus one repair, the same "
        "files (O on the Slice screen, or syncdesk fold), then write",
    )  # fmt: skip


def _last_per_path(changes: Sequence[FileChange]) -> list[FileChange]:
    """One change per path, the last given winning, in first-seen order."""
    return list({change.path: change for change in changes}.values())


def _edits(
    git: Git, head: str, changes: Sequence[FileChange]
) -> tuple[dict[str, Entry | None], list[tuple[str, str]]]:
    """The tree edits that make ``head`` hold ``changes``, and the ``(path, verb)`` of each."""
    unique = _last_per_path(changes)
    for change in unique:
        check_path(change.path)
        if change.mode is not None and change.mode not in FILE_MODES:
            raise ServiceError(f"cannot write {visible(change.path)} with mode {change.mode}")
    current = entries_at(git, head, [change.path for change in unique])
    edits: dict[str, Entry | None] = {}
    written: list[tuple[str, str]] = []
    for change in unique:
        before = current[change.path]
        if change.gitlink is not None:
            # A submodule: the tree names its commit, which this repository need not hold.
            link = Entry(GITLINK, change.gitlink)
            if link != before:
                edits[change.path] = link
                written.append((change.path, "submodule updated" if before else "submodule added"))
            continue
        if change.content is None and change.blob is None:
            if before is not None:
                edits[change.path] = None
                written.append((change.path, "deleted"))
            continue
        mode = change.mode or (before.mode if before is not None else "100644")
        if mode not in FILE_MODES:  # a submodule (160000) is not a file to write
            raise ServiceError(f"cannot write {visible(change.path)}: it is not a file at the head")
        oid = change.blob if change.content is None else write_blob(git, change.content)
        assert oid is not None  # content or blob: a deletion returned above
        entry = Entry(mode, oid)
        if entry == before:
            continue
        edits[change.path] = entry
        verb = (
            "added" if before is None else "updated" if before.oid != entry.oid else "mode changed"
        )
        written.append((change.path, verb))
    return edits, written
