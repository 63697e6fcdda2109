"""The conflicts of a sync, and how the head resolved each of them.

For a sync branch that has its merge, the merge's two parents (dev base,
slice tip) are merged again with ``git merge-tree --write-tree`` (zdiff3
markers, so the base is known), and each conflict is paired with what the
head (merge + repair) holds. For a sync not built yet, dev base and slice tip
are merged and there is no head to read.

Cost, whatever the number of conflicted files: one ``merge-tree``, two
``cat-file --batch-command`` (one asks the objects' sizes, one reads every
stage blob, every conflicted file of the result tree and every head version)
and then Python. (One more ``cat-file`` runs only when a renamed file's
markers name a path the head may hold that merge-tree's messages did not
mention.) Conflicted files are read from merge-tree's *result tree* (labelled
markers, renames applied), never by merging stage blobs again. A file with a
version over the large-file limit (:attr:`Git.large_file_limit`) is not read:
it is resolved whole, by blob id. merge-tree writes its objects to a scratch
store (:func:`syncdesk.services.git.objects.scratch_objects`), so reading the
conflicts leaves the repository untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from syncdesk.services.conflicts.file import (
    Draft,
    Objects,
    draft,
    finish,
    head_names,
    result_name,
    stages,
)
from syncdesk.services.conflicts.merge_tree import ConflictGroup, group_conflicts, merge_tree
from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.errors import MissingRefError
from syncdesk.services.git.objects import GitObject, read_objects, scratch_objects
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import GITLINK, changed_paths, entries_at
from syncdesk.services.sanitize import visible


def read_conflicts(
    git: Git, dev_side: str, main_side: str, head: str | None, *, remerge_of: str | None = None
) -> ConflictSet:
    """Merge ``dev_side`` (parent 1) with ``main_side`` (parent 2); read ``head``'s resolutions.

    ``head`` is None for a sync that is not built yet: every conflict is then
    ``unresolved``. With ``remerge_of`` (the sync merge of these two parents),
    the files its recorded result changes against this re-merge are listed too
    (:attr:`ConflictSet.remerged`): what ``git show --remerge-diff`` lists, from
    the same merge instead of a second one.
    """
    dev_sha, main_sha = _full(git, dev_side), _full(git, main_side)
    head_sha = _full(git, head) if head is not None else None
    remerged: tuple[str, ...] = ()
    with scratch_objects(git) as env:
        output = merge_tree(git, dev_sha, main_sha, env)
        if remerge_of is not None:
            # The re-merged tree lives in the scratch store: compared while it exists.
            remerged = tuple(changed_paths(git, output.tree, remerge_of, env=env))
        groups = group_conflicts(output)
        contents, infos = _wanted(groups, output.tree, head_sha)
        # Versions over the limit come without content: their files are resolved whole.
        limit = git.large_file_limit
        objects = read_objects(git, contents, infos, env=env, limit=limit)
        drafts = [draft(group, objects, output.tree, dev_sha, main_sha, limit) for group in groups]
        if head_sha is not None:
            objects |= _more_head_versions(git, drafts, head_sha, objects, env)
            objects |= _head_gitlinks(git, groups, head_sha)
    canon: dict[str, str] = {}  # one object per distinct line over every file (see finish)
    files = tuple(finish(one, objects, head_sha, limit, canon) for one in drafts)
    grouped = {path for one in drafts for path in one.paths}
    loose = tuple(
        visible(message.text)
        for message in output.messages
        if message.type.startswith("CONFLICT") and not grouped.intersection(message.paths)
    )
    return ConflictSet(
        dev_sha, main_sha, head_sha, output.tree, output.clean, files, loose,
        tuple(output.stages), remerged,
    )  # fmt: skip


def _full(git: Git, rev: str) -> str:
    sha = git.resolve(rev)
    if sha is None:
        raise MissingRefError(f"no commit named {rev!r} in this repository")
    return sha


def _wanted(
    groups: Sequence[ConflictGroup], tree: str, head: str | None
) -> tuple[list[str], list[str]]:
    """The object names to read with their content, and those whose id is enough."""
    contents: list[str] = []
    infos: list[str] = []
    for group in groups:
        # Binary files are compared by blob id: no need to hold their bytes.
        wanted = infos if group.binary_reported else contents
        for stage in stages(group):
            (infos if stage.mode == GITLINK else wanted).append(stage.oid)
        if (result := result_name(tree, group)) is not None:
            wanted.append(result)
        if head is not None:
            wanted.extend(f"{head}:{path}" for path in group.paths)
    return contents, infos


def _head_gitlinks(git: Git, groups: Sequence[ConflictGroup], head: str) -> Objects:
    """The head's entry of each submodule conflict's paths, as the commit id it names.

    ``cat-file`` cannot answer ``<head>:<path>`` for a gitlink (the submodule's
    commit is not in this repository): the id is read from the tree instead.
    """
    paths = [path for group in groups if group.type == "submodule" for path in group.paths]
    found = entries_at(git, head, paths)
    return {
        f"{head}:{path}": GitObject(entry.oid, "commit", 0, None)
        for path, entry in found.items()
        if entry is not None and entry.mode == GITLINK
    }


def _more_head_versions(
    git: Git, drafts: Iterable[Draft], head: str, objects: Objects, env: dict[str, str]
) -> Objects:
    """The head's versions under names only the markers revealed (a second, rare read)."""
    missing = [name for one in drafts for name in head_names(one, head) if name not in objects]
    return read_objects(git, missing, env=env, limit=git.large_file_limit) if missing else {}
