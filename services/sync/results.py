"""A sync's results kept by commit: its conflicts, the commits behind them, its audit.

Each function here is what the report, the Slice screen and the workspace all
call, so that one stored result serves them all: the key is every input the
result depends on, spelled out where it is computed (commit ids, git's version,
the settings that change it). Without a cache in the session (``syncdesk
--no-cache``, and the writers, which always read afresh) they compute.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from syncdesk.services.audit.hook import hook_refs
from syncdesk.services.audit.model import Audit
from syncdesk.services.conflicts.models import Attribution, ConflictSet
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.sync.anatomy import SyncMerge
from syncdesk.services.sync.ours import Ours, audit_scope, sync_ours
from syncdesk.services.sync.policies import audit_policy

if TYPE_CHECKING:  # the session's report reads its results through this module
    from syncdesk.services.sync.session import SyncSession

T = TypeVar("T")

# A key holds commit ids only: a ref name's commit changes, an id's never does.
_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def sync_conflicts(
    session: SyncSession,
    dev_side: str,
    main_side: str,
    head: str | None,
    *,
    remerge_of: str | None = None,
) -> ConflictSet:
    """:func:`~syncdesk.services.conflicts.read.read_conflicts`, kept by its commits."""
    git = session.git
    commits = [dev_side, main_side, head or "-", remerge_of or "-"]

    def compute() -> ConflictSet:
        return read_conflicts(git, dev_side, main_side, head, remerge_of=remerge_of)

    return _kept(session, "conflict listing", commits, _conflict_settings(session),
                 ConflictSet, compute)  # fmt: skip


def sync_attribution(session: SyncSession, conflicts: ConflictSet) -> Attribution:
    """:func:`~syncdesk.services.conflicts.attribution.attribute` of ``conflicts``, kept
    by the commits they were read from (the hunks are a function of those)."""
    commits = [conflicts.dev_side, conflicts.main_side, conflicts.head or "-"]

    def compute() -> Attribution:
        # Imported when first blamed: the Slice screen and the desk's start never blame.
        from syncdesk.services.conflicts.attribution import attribute

        return attribute(session.git, conflicts)

    return _kept(session, "commits behind the hunks", commits, _conflict_settings(session),
                 Attribution, compute)  # fmt: skip


def sync_audit(
    session: SyncSession,
    merge: SyncMerge,
    ours: Ours,
    conflicts: ConflictSet | None,
    steps: Steps = QUIET,
) -> Audit:
    """The audit of the sync's result (:func:`~syncdesk.services.audit.lost_lines.audit_sync`)
    as the report runs it, kept by the commits it judges and the settings it reads.
    ``ours`` is :func:`~syncdesk.services.sync.ours.sync_ours` of the session's head."""
    git, refs = session.git, session.refs
    scope = audit_scope(ours)
    # The real hook's refs are the newest merge's parents: when they are the
    # ones judged, its findings are computed and accounted for as well.
    hook = hook_refs(git, refs.head) == (scope.dev, merge.slice_tip)
    policy = audit_policy(session.config)
    commits = [merge.dev_base, merge.slice_tip, refs.head, scope.dev, *scope.judged]
    settings = [
        *_conflict_settings(session),
        f"hook={hook}",
        f"with-conflicts={conflicts is not None}",
        *(f"keep-dev={pattern}" for pattern in policy.keep_dev),
        *(f"override-from-main={pattern}" for pattern in policy.override_from_main),
        *(f"data-file={pattern}" for pattern in policy.data_files),
    ]

    def compute() -> Audit:
        # Imported when first audited (the triage's dozens of modules): opening a sync,
        # the Slice screen and a second open, served from the cache, never need them.
        from syncdesk.services.audit.lost_lines import audit_sync

        return audit_sync(
            git, merge.dev_base, merge.slice_tip, refs.head, steps,
            scope=scope, policy=policy, conflicts=conflicts, hook=hook,
        )  # fmt: skip

    steps("Auditing dev's lines in the result")
    return _kept(session, "audit", commits, settings, Audit, compute, steps.check)


def audit_ahead(session: SyncSession, conflicts: ConflictSet, steps: Steps = QUIET) -> None:
    """Compute the sync's audit into the cache before anyone asks for it, keeping nothing.

    The Slice screen calls this once its panels are read: the workspace's ``c``
    then finds the audit kept (or, if pressed sooner, waits for this one instead
    of starting its own). Without a cache, or with no sync merge, it does nothing
    (a result no one keeps would be thrown away).
    """
    merge = session.merge
    if session.results is None or merge is None or conflicts.head is None:
        return
    refs = session.refs
    ours = sync_ours(session.git, refs.head, merge.sha, merge.dev_base, refs.dev)
    sync_audit(session, merge, ours, conflicts, steps)  # kept; the value itself is dropped


def results_notes(session: SyncSession) -> list[str]:
    """What the session's cache has to say since last asked (an entry found unreadable and
    computed again, a store that failed): each line once, for the caller to show."""
    return session.results.take_notes() if session.results is not None else []


def _conflict_settings(session: SyncSession) -> list[str]:
    """What changes a merge's listing besides its commits: git's merge, the size limit."""
    major, minor = session.git.version()
    return [f"git={major}.{minor}", f"large-file-limit={session.git.large_file_limit}"]


def _kept(
    session: SyncSession,
    kind: str,
    commits: list[str],
    settings: list[str],
    expected: type[T],
    compute: Callable[[], T],
    check: Callable[[], None] = QUIET.check,
) -> T:
    cache = session.results
    if cache is None or not all(c == "-" or _OBJECT_ID.fullmatch(c) for c in commits):
        return compute()
    return cache.kept(kind, [*commits, *settings], expected, compute, check)
