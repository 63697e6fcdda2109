"""Carry an old sync merge's hand work into the merge of the same slice on a new dev base.

Three kinds of hand work live in a sync merge's tree, and each is carried its own way:

1. **A conflict that is the same again** (same ``file_key``, the conflict's
   identity in :mod:`syncdesk.services.conflicts.models`: its type and hunks, or its
   two sides' blobs): the old merge's version of every path of the conflict
   is taken as it is, deletions included. This covers binary, modify/delete
   and add/add conflicts too, which have no hunks.
2. **A conflict that changed** (some hunks new): per hunk, a hunk whose key
   (its dev and main lines) is the same as a hunk the old merge resolved
   takes that resolution; every other hunk keeps merge-tree's conflict
   markers, the only honest content for a decision nobody has made yet. In
   syncdesk's layout a merge may hold markers (the repair fixes them), and the
   workspace lists such hunks as unresolved. Lines the old resolution changed
   *around* a hunk (``context_changed``) are not carried: they are the
   new merge's common lines now.
3. **Non-conflict ("evil") changes**: files where the old merge differs from
   git's automatic merge of its own parents, outside any conflict. Each is
   re-applied as a three-way merge (:mod:`syncdesk.services.conflicts.threeway`: base = the old
   automatic merge, theirs = it plus the old merge's version): when the new
   automatic merge of the file equals the old one this is the old merge's
   version exactly; when dev changed the file elsewhere the two changes
   combine; when they clash, the change is not carried and is reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from syncdesk.services.conflicts.merge_tree import MergeTreeOutput, merge_tree
from syncdesk.services.conflicts.models import ConflictFile, ConflictSet, rebuild
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.conflicts.threeway import three_way
from syncdesk.services.git.objects import scratch_objects
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_blob
from syncdesk.services.git.trees import Entry, build_tree, changed_paths, durable_env, entries_at
from syncdesk.services.lines import encode_text


@dataclass(frozen=True, slots=True)
class CarriedConflicts:
    """The tree edits that carry the old resolutions, and what they covered."""

    edits: dict[str, Entry | None]
    files: tuple[str, ...]  # resolved as before: the whole file, or every one of its hunks
    hunks: int  # hunks resolved as before in files that also have new hunks
    uncovered: tuple[str, ...]  # conflicts with at least one hunk (or the file) not carried


@dataclass(frozen=True, slots=True)
class CarriedChanges:
    """The merge tree with the old merge's non-conflict changes carried over."""

    tree: str
    carried: tuple[str, ...]
    not_carried: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CarriedMerge:
    """The merge of the same slice on a new dev base, with the old merge's hand work."""

    new: ConflictSet  # the conflicts of the new merge
    conflicts: CarriedConflicts
    changes: CarriedChanges  # its ``tree`` is the new merge's tree


def carry_merge(
    git: Git,
    dev_base: str,
    slice_tip: str,
    old_merge: str,
    onto: str,
    *,
    uncovered_from: str | None = None,
) -> CarriedMerge:
    """The old merge's conflicts and non-conflict changes, carried onto ``onto`` + ``slice_tip``.

    ``uncovered_from``: a commit whose version of a conflict's files is taken
    when the conflict was not carried (a fold: a merge of dev on top resolved
    what the old merge never met); without it those keep merge-tree's markers.
    The automatic merge's objects go to the repository: the new merge uses them.
    """
    old = read_conflicts(git, dev_base, slice_tip, old_merge)
    new = read_conflicts(git, onto, slice_tip, None)
    automatic = merge_tree(git, onto, slice_tip, durable_env())
    conflicts = carry_conflicts(git, old, new, old_merge)
    edits = dict(conflicts.edits)
    if uncovered_from is not None:
        edits.update(entries_at(git, uncovered_from, list(conflicts.uncovered)))
    with_conflicts = build_tree(git, automatic.tree, edits)
    new_paths = {path for conflict in new.files for path in (conflict.path, *conflict.old_paths)}
    changes = carry_changes(git, dev_base, slice_tip, old_merge, with_conflicts, new_paths)
    return CarriedMerge(new, conflicts, changes)


def carry_conflicts(
    git: Git, old: ConflictSet, new: ConflictSet, old_merge: str
) -> CarriedConflicts:
    """Edits to the new automatic merge that re-apply the old merge's resolutions."""
    by_key: dict[str, list[ConflictFile]] = {}
    for conflict in old.files:
        by_key.setdefault(conflict.file_key, []).append(conflict)
    wanted = [path for conflict in new.files for path in _paths(conflict)]
    at_old_merge = entries_at(git, old_merge, wanted)
    edits: dict[str, Entry | None] = {}
    files: list[str] = []
    uncovered: list[str] = []
    hunks = 0
    for conflict in new.files:
        same = _same_conflict(by_key.get(conflict.file_key, []), conflict)
        if same is not None:
            edits.update(_whole(conflict, same, at_old_merge))
            files.append(conflict.path)
            continue
        choices = _hunk_choices(conflict, old.files)
        if choices is None or not any(choice is not None for choice in choices):
            uncovered.append(conflict.path)
            continue
        assert conflict.segments is not None
        content = encode_text(rebuild(conflict.segments, choices))
        edits[conflict.path] = Entry(conflict.mode, write_blob(git, content))
        if all(choice is not None for choice in choices):
            files.append(conflict.path)
        else:
            hunks += sum(choice is not None for choice in choices)
            uncovered.append(conflict.path)
    return CarriedConflicts(edits, tuple(files), hunks, tuple(uncovered))


def carry_changes(
    git: Git,
    old_dev_base: str,
    slice_tip: str,
    old_merge: str,
    ours: str,
    keep_out: Iterable[str],
) -> CarriedChanges:
    """``ours`` (the new merge tree) with the old merge's non-conflict changes re-applied.

    ``keep_out``: paths not to touch (the new merge's conflicts, decided apart).
    """
    new_conflicts = set(keep_out)
    with scratch_objects(git) as scratch:
        automatic = merge_tree(git, old_dev_base, slice_tip, scratch)
        old_conflicts = _conflicted(automatic)
        changed = changed_paths(git, automatic.tree, old_merge, scratch)
        hand_made = {p: after for p, (_, after) in changed.items() if p not in old_conflicts}
        clashing = {path for path in hand_made if path in new_conflicts}
        evil = {path: after for path, after in hand_made.items() if path not in clashing}
        if not evil:
            return CarriedChanges(ours, (), tuple(sorted(clashing)))
        theirs = build_tree(git, automatic.tree, evil, scratch)
        result = three_way(git, automatic.tree, ours, theirs, env=scratch)
    failed = set(result.conflicted) & set(evil)
    carried = tuple(sorted(set(evil) - failed))
    return CarriedChanges(result.tree, carried, tuple(sorted(failed | clashing)))


def _paths(conflict: ConflictFile) -> tuple[str, ...]:
    return (conflict.path, *conflict.old_paths)


def _same_conflict(candidates: list[ConflictFile], new: ConflictFile) -> ConflictFile | None:
    """The old conflict identical to ``new``, the one at the same path first."""
    at_path = [old for old in candidates if new.path in _paths(old)]
    ranked = at_path or candidates
    return ranked[0] if ranked else None


def _whole(
    new: ConflictFile, old: ConflictFile, at_old_merge: dict[str, Entry | None]
) -> dict[str, Entry | None]:
    """The old merge's version of every path of the conflict."""
    if new.path in _paths(old):
        return {path: at_old_merge.get(path) for path in _paths(new)}
    # The same conflict under another name (dev renamed the file since): the
    # resolved content goes to the new name.
    mode = new.mode if new.mode in ("100644", "100755", "120000") else "100644"
    return {new.path: Entry(mode, old.head_blob) if old.head_blob else None}


def _hunk_choices(
    new: ConflictFile, old_files: Iterable[ConflictFile]
) -> list[tuple[str, ...] | None] | None:
    """Per hunk of ``new``, the old merge's resolution of the same hunk (None: none)."""
    if new.segments is None or new.whole_file_only:
        return None
    same_path: dict[str, tuple[str, ...]] = {}
    anywhere: dict[str, tuple[str, ...]] = {}
    for old in old_files:
        target = same_path if new.path in _paths(old) else anywhere
        for hunk in old.hunks:
            if hunk.head is not None and hunk.resolution != "unresolved":
                target.setdefault(hunk.key, hunk.head)
    return [same_path.get(hunk.key, anywhere.get(hunk.key)) for hunk in new.hunks]


def _conflicted(output: MergeTreeOutput) -> set[str]:
    paths = set(output.stages)
    for message in output.messages:
        if message.type.startswith("CONFLICT"):
            paths.update(message.paths)
    return paths
