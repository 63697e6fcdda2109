"""What happened around the sync: dev's new commits, the protected files, line stats."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from syncdesk.services.errors import GitCommandError
from syncdesk.services.git.objects import scratch_objects
from syncdesk.services.git.runner import Git, first_line
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.commits import parse_numstat, summaries
from syncdesk.services.sync.models import DevAdvanced, ProtectedFile, Stats


def dev_advanced(git: Git, dev_base: str, dev_tip: str, head: str) -> DevAdvanced:
    """Dev's commits the sync does not hold yet, and whether dev's tip merges into the head
    cleanly. A commit a merge of dev on top of the sync already brought in is not new.

    The cheap check before a rebuild (DOMAIN.md, step 5): ``merge-tree
    --write-tree`` merges without a work tree. Its exit status is the answer
    (0 clean, 1 conflicts); the output is never inspected for it, because a
    conflict can exist with no conflicted file listed (directory renames).
    """
    shas = git.lines("rev-list", "--reverse", dev_tip, f"^{dev_base}", f"^{head}", "--")
    if not shas:
        return DevAdvanced(dev_tip, (), None)
    # merge-tree writes the merged blobs and trees: into a throwaway store, so
    # reading a sync leaves the user's object database as it was.
    with scratch_objects(git) as env:
        result = git.run(
            ["merge-tree", "--write-tree", "--no-messages", head, dev_tip], check=False, env=env
        )
    if result.status not in (0, 1):
        raise GitCommandError(f"git merge-tree failed: {first_line(result.stderr)}")
    return DevAdvanced(dev_tip, summaries(git, shas), result.status == 0)


def _blobs(git: Git, commit: str, paths: Sequence[str]) -> dict[str, str]:
    """The object id of each path in ``commit`` (a tree id for a directory); absent: no key.

    Each ``<commit>:<path>`` is looked up exactly with one ``cat-file --batch-check``.
    (``ls-tree`` takes pathspecs: a directory listed together with a file inside it, or
    written with a trailing slash, came back under another name, so it always compared
    as identical.) The batch protocol is line-based: a path with a newline is absent.
    """
    wanted = [path for path in paths if "\n" not in path]
    if not wanted:
        return {}
    stdin = "".join(f"{commit}:{path}\n" for path in wanted).encode()
    answers = git.run(["cat-file", "--batch-check=%(objectname)"], input=stdin).text.splitlines()
    return {
        path: answer
        for path, answer in zip(wanted, answers, strict=True)
        if not answer.endswith(" missing")
    }


def protected_files(
    git: Git, head: str, dev_base: str, paths: Sequence[str]
) -> tuple[ProtectedFile, ...]:
    """Each keep-dev path at the head compared with the dev base, by blob id."""
    if not paths:
        return ()
    at_head = _blobs(git, head, paths)
    at_base = _blobs(git, dev_base, paths)
    return tuple(
        ProtectedFile(
            path=one_line(path),
            identical=at_head.get(path) == at_base.get(path),
            at_head=at_head.get(path),
            at_dev_base=at_base.get(path),
        )
        for path in paths
    )


def line_stats(
    git: Git,
    dev_base: str,
    head: str,
    merge: str | None,
    conflicted: Iterable[str] | None = None,
) -> Stats:
    """Python line stats from the dev base to the head, and the remerge-diff file list.

    ``show --remerge-diff`` re-merges the merge's parents and diffs the result
    against the recorded merge: it lists what the human resolution changed,
    including files git would have merged cleanly but the resolution altered.
    ``conflicted`` is what re-merging the parents lists as conflicted, when
    the caller has it (``ConflictSet.stage_paths``); None: merged again here.
    A caller that reads the conflicts anyway passes ``merge`` None (line counts
    only) and adds ``ConflictSet.remerged`` and ``stage_paths`` with
    :func:`with_conflicted`: one merge of the parents instead of two.
    """
    stats = parse_numstat(
        git.fields("diff", "--numstat", "-z", "--no-renames", dev_base, head, "--", "*.py")
    )
    remerge: tuple[str, ...] = ()
    if merge is not None:
        # The re-merge writes its objects into a temporary store inside the
        # object directory: a scratch one, so a read-only repository can be read.
        with scratch_objects(git) as env:
            shown = git.run(
                ["show", "--remerge-diff", "--format=", "--name-only", "-z", "--no-renames",
                 merge],
                env=env,
            )  # fmt: skip
        names = [name for name in shown.text.split("\0") if name.strip()]
        # --name-only drops the files remerge-diff shows by their conflict header alone:
        # a conflict resolved exactly as the re-merge left it (a modify/delete kept as
        # modified). Re-merging the parents names every conflicted file.
        if conflicted is None:
            conflicted = _conflicted_files(git, merge)
        remerge = _names([*names, *conflicted])
    return Stats(
        python_added=sum(s.added or 0 for s in stats),
        python_deleted=sum(s.deleted or 0 for s in stats),
        python_files=len(stats),
        remerge_diff_files=remerge,
    )


def with_conflicted(stats: Stats, conflicted: Iterable[str]) -> Stats:
    """``stats`` with ``conflicted`` (and any re-merge list) added to its remerge-diff list."""
    return replace(stats, remerge_diff_files=_names([*stats.remerge_diff_files, *conflicted]))


def _names(paths: Iterable[str]) -> tuple[str, ...]:
    """Paths made safe to show, once each, sorted (``one_line`` keeps a shown name unchanged)."""
    return tuple(sorted({one_line(name) for name in paths if name.strip()}))


def _conflicted_files(git: Git, merge: str) -> list[str]:
    """The files that conflict when ``merge``'s two parents are merged again."""
    parents = git.lines("rev-parse", f"{merge}^@")
    if len(parents) != 2:
        return []
    with scratch_objects(git) as env:
        result = git.run(
            ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", *parents],
            check=False,
            env=env,
        )
    if result.status not in (0, 1):
        raise GitCommandError(f"git merge-tree failed: {first_line(result.stderr)}")
    # Output: the tree id, then one conflicted path per NUL-terminated field.
    return [name for name in result.text.split("\0")[1:] if name] if result.status == 1 else []
