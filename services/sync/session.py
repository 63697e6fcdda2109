"""Open a repository as a sync and gather the facts of issue 2's report.

``open_sync`` validates everything that can make a report meaningless (not a
repository, git too old, a missing ref, a shallow clone without the history)
and fails with one clear line. ``load_report`` then gathers the facts step by
step through a :class:`~syncdesk.services.progress.Steps`, so a UI can show
progress and let the user cancel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from syncdesk.services.cache.results import ResultsCache, default_cache
from syncdesk.services.errors import ServiceError, ShallowHistoryError
from syncdesk.services.git.ahead import Ahead
from syncdesk.services.git.branches import NamedBranch, name_branch, resolve_commit
from syncdesk.services.git.refs import current_branch
from syncdesk.services.git.runner import Git
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.anatomy import SyncMerge, check_anatomy, find_sync_merge
from syncdesk.services.sync.branch_state import (
    dev_advanced,
    line_stats,
    protected_files,
    with_conflicted,
)
from syncdesk.services.sync.commits import commit_details
from syncdesk.services.sync.config import Config, load_config, with_overrides
from syncdesk.services.sync.models import Anatomy, CommitDetails, Slice, SyncRefs, SyncReport
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.ours import sync_ours
from syncdesk.services.sync.results import sync_attribution, sync_audit, sync_conflicts
from syncdesk.services.sync.slice import imported_size, main_line, read_slice


@dataclass(frozen=True, slots=True)
class SyncSession:
    """An opened repository with its refs resolved and its configuration read."""

    git: Git
    config: Config
    refs: SyncRefs
    options: SyncOptions | None = None  # how it was opened, so it can be read again
    user_config: Path | None = None
    named: NamedBranch | None = None  # what the head's name stands for (services/git/branches)
    results: ResultsCache | None = None  # where results kept by commit are (None: computed)
    # The sync merge, looked up once for the session's life (its refs never change:
    # a write or an undo reopens the session). A one-slot box, as the class is frozen.
    _merge: list[SyncMerge | None] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    @property
    def merge(self) -> SyncMerge | None:
        """The sync merge on the head's first-parent line, or None (looked up once).

        Two workers may both look it up the first time: they find the same merge.
        """
        if not self._merge:
            refs = self.refs
            self._merge.append(find_sync_merge(self.git, refs.head, refs.dev, refs.main))
        return self._merge[0]

    @property
    def repo_path(self) -> str:
        """The repository's path, for display: a directory name can hold control characters."""
        return one_line(str(self.git.work_tree or self.git.git_dir))


def open_sync(options: SyncOptions, user_config: Path | None = None) -> SyncSession:
    """Open and validate the repository; raise a ServiceError with one line if unusable."""
    git = Git(options.repo)
    git.require_version()
    config = with_overrides(
        load_config(git.work_tree, user_config),
        main_branch=options.main,
        dev_branch=options.dev,
        slice_size=options.slice_size,
    )
    git.large_file_limit = config.large_file_limit
    named = name_branch(git, options.head, config.remote)
    refs = SyncRefs(
        head_name=one_line(named.name),
        head=named.sha,
        dev_name=one_line(config.dev_branch),
        dev=resolve_commit(git, config.dev_branch, config.remote),
        main_name=one_line(config.main_branch),
        main=resolve_commit(git, config.main_branch, config.remote),
        branch=None if named.branch is None else one_line(named.branch),
    )
    _require_history(git, refs)
    results = default_cache() if options.results_cache else None
    return SyncSession(git, config, refs, options, user_config, named, results)


def reopen(session: SyncSession) -> SyncSession:
    """The same sync opened again, its refs resolved anew (a write or an undo moved one).

    The configuration is read again too, so an edited ``.syncdesk.toml`` takes
    effect on reload. A session built by hand (tests) is returned unchanged.
    """
    if session.options is None:
        return session
    return open_sync(session.options, session.user_config)


def writable_branch(session: SyncSession) -> str:
    """The local branch a write, undo or push acts on: the one named, else the checked-out one.

    Named by its remote-tracking ref (``origin/x``, or ``x`` when only the remote
    has it), it is the local branch ``x``: :func:`write_tracking` says where a
    write that creates it starts. Raises a :class:`ServiceError` when the head
    names no branch (a detached HEAD, a SHA, a tag), or when the local branch is
    elsewhere than the remote-tracking ref the desk shows.
    """
    named = session.named
    if named is None:  # a session built by hand (tests): the checked-out branch
        branch = current_branch(session.git)
        if branch is None:
            raise ServiceError("HEAD is detached: name the sync branch (syncdesk --head BRANCH)")
        return branch
    if named.branch is None:
        what = "HEAD is detached" if named.ref == "HEAD" else f"{one_line(named.name)} is no branch"
        raise ServiceError(f"{what}: name the sync branch (syncdesk --head BRANCH)")
    if named.tracking is not None and named.local:
        local = session.git.resolve(f"refs/heads/{named.branch}")
        if local != named.sha:
            branch = one_line(named.branch)
            raise ServiceError(
                f"{one_line(named.name)} is at {named.sha[:12]} but your local branch {branch} "
                f"is at {(local or '')[:12]}: open {branch} itself (--head {branch}), or bring "
                f"it up to date first (git switch {branch} && git merge --ff-only "
                f"{one_line(named.name)})"
            )
    return named.branch


def write_tracking(session: SyncSession) -> str | None:
    """The remote-tracking ref a write creates the local branch from, if it must."""
    named = session.named
    if named is None or named.local or named.tracking is None:
        return None
    return named.tracking


def _require_history(git: Git, refs: SyncRefs) -> None:
    """A shallow clone is fine only if dev and main still meet in it."""
    if git.text("rev-parse", "--is-shallow-repository").strip() != "true":
        return
    if git.run(["merge-base", refs.dev, refs.main], check=False).status != 0:
        raise ShallowHistoryError(
            "this is a shallow clone without the history where dev and main meet; "
            "run git fetch --unshallow"
        )


def load_report(
    session: SyncSession,
    steps: Steps = QUIET,
    *,
    detail: bool = True,
    breakage: bool = False,
    early: Callable[[Slice, Anatomy], None] | None = None,
) -> SyncReport:
    """Gather the slice, anatomy, dev's progress, protected files, stats and conflicts.

    With ``detail`` (the full report) the hunks are also blamed and dev's lines
    audited (with ``breakage``, the result's conflicted and flagged Python files are also
    checked for code it breaks: services/audit/broken.py); the Slice screen leaves both to
    the conflict workspace, which computes them for the file in view. ``early`` is given
    the slice and the anatomy as soon as they are known (a few git commands in), before the
    merges that take the rest of the time: a UI paints them meanwhile.
    """
    git, config, refs = session.git, session.config, session.refs
    steps("Finding the sync merge")
    merge = session.merge
    # With no sync merge yet, the next sync would start from dev's tip.
    dev_base = merge.dev_base if merge is not None else refs.dev
    steps("Reading the slice")
    line = main_line(git, dev_base, refs.main)
    # The slice is what the merge imported; the configured size only picks the
    # next one (no merge yet) and is shown beside the count as the bot's usual.
    imported = imported_size(merge.slice_tip if merge is not None else None, line)
    if imported is not None:
        the_slice = read_slice(git, dev_base, refs.main, imported, line, expected=config.slice_size)
    else:
        the_slice = read_slice(git, dev_base, refs.main, config.slice_size, line)
    head_on_dev = merge is None and git.is_ancestor(refs.head, refs.dev)
    ours = None
    if merge is not None:
        ours = sync_ours(git, refs.head, merge.sha, merge.dev_base, refs.dev)
    anatomy = check_anatomy(refs.head, merge, line, head_on_dev, ours)
    if early is not None:
        early(the_slice, anatomy)
    # git does most of the work below in processes of its own: the branch checks
    # and the blame run on threads while this one reads the conflicts and audits.
    with Ahead() as ahead:
        advanced = ahead.ask(dev_advanced, git, dev_base, refs.dev, refs.head)
        # With dev merged on top, "dev's version" is the newest dev the head holds
        # (the one definition of ours, services/sync/ours.py), as for the audit.
        newest_dev = ours.dev if ours is not None else dev_base
        protected = ahead.ask(protected_files, git, refs.head, newest_dev, config.keep_dev)
        # The remerge-diff list comes with the conflicts read below, from their one
        # merge of the parents: here only the line counts.
        stats = ahead.ask(line_stats, git, dev_base, refs.head, None)
        steps("Reading the conflicts")
        conflicts = None
        if merge is not None:
            conflicts = sync_conflicts(
                session, merge.dev_base, merge.slice_tip, refs.head, remerge_of=merge.sha
            )
        elif the_slice.tip is not None:  # not built yet: what the next sync would meet
            conflicts = sync_conflicts(session, dev_base, the_slice.tip, None)
        blamed = audit = None
        if detail and conflicts is not None:
            steps("Blaming the conflict hunks")
            blamed = ahead.ask(sync_attribution, session, conflicts)
        if detail and merge is not None and ours is not None:
            audit = sync_audit(session, merge, ours, conflicts, steps)
            if breakage and conflicts is not None:
                # Opt-in: parsing what the files import is the cost (18 s and 500 MB of
                # the report on 13_08's 89 conflicted files; 0.6 s more on 04_05).
                steps("Looking for code the result breaks")
                # Imported here: its checker (pyflakes) and module resolver are the
                # report's opt-in, not what opening a sync needs.
                from syncdesk.services.audit.broken import with_breakage

                conflicted = [conflict.path for conflict in conflicts.files]
                audit = with_breakage(git, audit, conflicted)
        steps("Checking whether dev moved on and the protected files")
        attribution = blamed.result() if blamed is not None else None
        remerged = stats.result()
        if merge is not None and conflicts is not None:
            remerged = with_conflicted(remerged, [*conflicts.remerged, *conflicts.stage_paths])
        branch = advanced.result(), protected.result(), remerged
    return SyncReport(
        repo=session.repo_path,
        refs=refs,
        slice=the_slice,
        anatomy=anatomy,
        dev_advanced=branch[0],
        protected_files=branch[1],
        stats=branch[2],
        conflicts=conflicts,
        attribution=attribution,
        audit=audit,
    )


def load_commit(session: SyncSession, sha: str) -> CommitDetails:
    """The commit view's facts for ``sha``."""
    return commit_details(session.git, sha)
