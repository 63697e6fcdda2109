"""The anatomy of a sync branch: N original main commits + 1 merge + 0 or 1 repair.

The sync merge is found by its parents, never by its message: walking the
head's first-parent line down to where it meets dev or main, it is the
lowest merge whose parent 1 is on dev and parent 2 on main. When no merge
fits both, the lowest merge that fits one of them is taken, so the report can
say precisely which rule the branch breaks.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.git.runner import Git
from syncdesk.services.sync.models import Anatomy, Problem
from syncdesk.services.sync.ours import Ours

# A sync branch has ~100 commits of its own; a first-parent walk this long
# means the head is not a sync branch at all, and we stop looking.
_MAX_WALK = 5000


@dataclass(frozen=True, slots=True)
class SyncMerge:
    """The merge commit of a sync and where its parents sit."""

    sha: str
    dev_base: str
    slice_tip: str
    dev_base_on_dev: bool
    slice_tip_on_main: bool
    on_top: tuple[str, ...]  # first-parent commits after the merge, oldest first
    merges_on_top: tuple[str, ...]


def find_sync_merge(git: Git, head: str, dev: str, main: str) -> SyncMerge | None:
    """The sync merge on ``head``'s first-parent line, or None if it has none."""
    out = git.lines(
        "rev-list", "--first-parent", "--parents", f"--max-count={_MAX_WALK}",
        head, "--not", dev, main, "--",
    )  # fmt: skip
    chain = [line.split() for line in out]  # newest first: [sha, parent1, parent2, ...]
    best: tuple[int, int, list[str], bool, bool] | None = None  # (rank, index, entry, ...)
    for index in range(len(chain) - 1, -1, -1):  # oldest first
        entry = chain[index]
        if len(entry) < 3:
            continue
        on_dev = git.is_ancestor(entry[1], dev)
        on_main = git.is_ancestor(entry[2], main)
        rank = 0 if on_dev and on_main else 1 if on_main else 2 if on_dev else 3
        if rank < 3 and (best is None or rank < best[0]):
            best = (rank, index, entry, on_dev, on_main)
            if rank == 0:
                break
    if best is None:
        return None
    _, index, entry, on_dev, on_main = best
    above = chain[:index]
    return SyncMerge(
        sha=entry[0],
        dev_base=entry[1],
        slice_tip=entry[2],
        dev_base_on_dev=on_dev,
        slice_tip_on_main=on_main,
        on_top=tuple(e[0] for e in reversed(above)),
        merges_on_top=tuple(e[0] for e in reversed(above) if len(e) > 2),
    )


def check_anatomy(
    head: str,
    merge: SyncMerge | None,
    line: list[str],
    head_on_dev: bool = False,
    ours: Ours | None = None,
) -> Anatomy:
    """Check every rule of the sync shape; ``line`` is ``main_line(dev_base, main)``.

    ``head_on_dev`` only words the ``no-sync-merge`` message: a head that dev
    already contains (a sync that has landed, or dev itself) has nothing to check.
    ``ours`` (:func:`~syncdesk.services.sync.ours.sync_ours` of this merge) is
    carried into the anatomy, and a merge of dev on top says what it brought.
    """
    if merge is None:
        message = (
            "the head is already on dev: there is no sync on it to check"
            if head_on_dev
            else "no merge on this branch has parent 1 on dev and parent 2 on main"
        )
        return Anatomy(head, None, None, None, None, None, (), (Problem("no-sync-merge", message),))
    problems = []
    if not merge.dev_base_on_dev:
        problems.append(
            Problem(
                "dev-base-not-on-dev",
                f"parent 1 of the merge {merge.sha[:8]}, {merge.dev_base[:8]}, is not on dev",
            )
        )
    position = line.index(merge.slice_tip) + 1 if merge.slice_tip in line else None
    problems.extend(_slice_problems(merge, position))
    problems.extend(_top_problems(merge, ours))
    shape_allows_repair = len(merge.on_top) == 1 and not merge.merges_on_top
    return Anatomy(
        head=head,
        merge=merge.sha,
        dev_base=merge.dev_base,
        slice_tip=merge.slice_tip,
        slice_position=position,
        repair=merge.on_top[0] if shape_allows_repair else None,
        on_top=merge.on_top,
        problems=tuple(problems),
        ours=ours,
    )


def _slice_problems(merge: SyncMerge, position: int | None) -> list[Problem]:
    """Parent 2 must be a commit of main's first-parent line after the dev base.

    How many commits that is is not a rule: the merge imported what it imported
    (8 to 274 on real syncs), and the configured size is only the bot's usual
    (``Slice.expected``), shown beside the count, never a reason a sound branch
    reads broken.
    """
    tip = merge.slice_tip[:8]
    if not merge.slice_tip_on_main:
        return [
            Problem(
                "slice-not-on-main",
                f"parent 2 of the merge, {tip}, is not a main commit: the slice was rewritten",
            )
        ]
    if position is not None:
        return []
    return [
        Problem(
            "slice-tip-mismatch",
            f"parent 2 of the merge, {tip}, is on main but not on its first-parent line "
            "after the dev base: the slice is not a run of main's oldest commits",
        )
    ]


def _top_problems(merge: SyncMerge, ours: Ours | None) -> list[Problem]:
    problems = []
    if len(merge.on_top) > 1:
        problems.append(
            Problem(
                "extra-commits-on-top",
                f"{len(merge.on_top)} commits after the merge; "
                "a sync has at most one repair commit",
            )
        )
    problems.extend(
        Problem("dev-merge-on-top", f"merge {sha[:8]} sits on top of the sync merge" + (
            _brought_words(ours, sha) if ours is not None else ""))
        for sha in merge.merges_on_top
    )  # fmt: skip
    return problems


def _brought_words(ours: Ours, merge: str) -> str:
    """What a merge of dev brought is dev's; its own resolution is ours (docs/ours.md)."""
    if merge not in ours.merges:
        return ""
    brought = ours.brought_by(merge)
    on_dev = len(set(brought) & set(ours.from_dev))
    count = f"{on_dev} dev commit" + ("" if on_dev == 1 else "s")
    strays = len(brought) - on_dev
    stray_words = f" and {strays} on neither side" if strays else ""
    return f": it brought {count} (dev's){stray_words}; its own resolution is ours"
