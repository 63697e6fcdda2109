"""A three-way merge of trees with an explicit base, on any git since 2.38.

``git merge-tree --write-tree --merge-base <base>`` arrived in git 2.40; git
2.39 computes the base from history. So the base is *made* the merge base:
three throwaway commits, ``B`` (tree ``base``, no parent), ``O`` (tree
``ours``, parent ``B``) and ``T`` (tree ``theirs``, parent ``B``), whose only
common ancestor is ``B``. ``merge-tree O T`` is then exactly the merge of
``theirs``' changes since ``base`` into ``ours``, with git's rename detection
and built-in merge drivers (configured ones never run: see runner.py). It is
how a repair patch is re-applied on a rebuilt merge (a cherry-pick: base = the
old merge, theirs = the old head) and how a merge's non-conflict ("evil")
changes are carried to its rebuild.

Everything runs in a scratch object store (:func:`syncdesk.services.git.objects.scratch_objects`):
the throwaway commits and merge-tree's objects vanish with it. Only the
blobs the result keeps are written to the repository, and the result tree is
built there from ``ours`` plus the merged paths. A path the merge left in
conflict keeps ``ours``' version and is reported; no markers are written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from syncdesk.services.conflicts.merge_tree import merge_tree
from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.objects import read_objects, scratch_objects
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import existing_blobs, write_blob
from syncdesk.services.git.trees import GITLINK, Entry, build_tree, changed_paths


@dataclass(frozen=True, slots=True)
class ThreeWay:
    """The merged tree (in the repository's store) and what happened to each path."""

    tree: str
    merged: tuple[str, ...]  # paths whose result differs from ours (theirs' change applied)
    conflicted: tuple[str, ...]  # paths left as ours has them: theirs' change did not apply


def three_way(
    git: Git, base: str, ours: str, theirs: str, *, env: Mapping[str, str] | None = None
) -> ThreeWay:
    """Apply the change ``base -> theirs`` to ``ours`` (all three trees).

    ``env`` is an enclosing scratch store's environment, for a ``base`` or
    ``theirs`` that only exists there; by default a fresh scratch store is used.
    """
    with _scratch(git, env) as scratch:
        base_commit = _throwaway(git, base, (), scratch)
        ours_commit = _throwaway(git, ours, (base_commit,), scratch)
        theirs_commit = _throwaway(git, theirs, (base_commit,), scratch)
        output = merge_tree(git, ours_commit, theirs_commit, scratch)
        conflicted = set(output.stages)
        if not output.clean:  # a conflict can name paths without leaving stages
            conflicted |= {
                path
                for message in output.messages
                if message.type.startswith("CONFLICT")
                for path in message.paths
            }
        changed = changed_paths(git, ours, output.tree, scratch)
        edits = {path: new for path, (_, new) in changed.items() if path not in conflicted}
        _export_blobs(git, edits, scratch)
    tree = build_tree(git, ours, edits)
    return ThreeWay(tree, tuple(sorted(edits)), tuple(sorted(conflicted)))


@contextmanager
def _scratch(git: Git, env: Mapping[str, str] | None) -> Iterator[dict[str, str]]:
    if env is not None:
        yield dict(env)
        return
    with scratch_objects(git) as fresh:
        yield fresh


def _throwaway(git: Git, tree: str, parents: tuple[str, ...], env: dict[str, str]) -> str:
    args = ["commit-tree", tree]
    for parent in parents:
        args += ["-p", parent]
    return git.run(args, input=b"syncdesk: three-way merge\n", env=env).text.strip()


def _export_blobs(git: Git, edits: Mapping[str, Entry | None], scratch: dict[str, str]) -> None:
    """Write into the repository the blobs of ``edits`` that only the scratch store has."""
    wanted = {entry.oid for entry in edits.values() if entry is not None and entry.mode != GITLINK}
    missing = sorted(wanted - existing_blobs(git, wanted))
    if not missing:
        return
    found = read_objects(git, missing, env=scratch)
    for oid in missing:
        item = found.get(oid)
        if item is None or item.content is None or write_blob(git, item.content) != oid:
            raise GitCommandError(f"could not copy merged file {oid[:12]} into the repository")
