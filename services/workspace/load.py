"""Gather what the conflict workspace needs, off the UI thread, in as few git calls as possible."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from syncdesk.services.audit.model import Audit
from syncdesk.services.audit.renumber import in_dev_base
from syncdesk.services.conflicts.models import ConflictFile, ConflictSet
from syncdesk.services.decisions.carryover import ResolutionStore
from syncdesk.services.decisions.learned import Suggestion
from syncdesk.services.decisions.models import Action, SyncKey
from syncdesk.services.decisions.store import LoadedState, load_state
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import read_blobs, read_lines
from syncdesk.services.lines import bytes_to_lines
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.sync.ours import sync_ours
from syncdesk.services.sync.results import sync_audit, sync_conflicts
from syncdesk.services.sync.session import SyncSession
from syncdesk.services.sync.slice import main_line
from syncdesk.services.workspace.layout import hunk_holding_dev_line
from syncdesk.services.workspace.whole_file import shown_blobs


@dataclass(frozen=True, slots=True)
class WorkspaceData:
    """The conflicts of the sync, the maintainer's saved decisions, and carry-over suggestions."""

    conflicts: ConflictSet
    loaded: LoadedState
    branch: str | None
    texts: dict[str, tuple[str, ...]]  # blob id -> lines: every decision and suggestion blob
    suggestions: dict[str, list[Suggestion]]  # hunk key -> learned resolutions, newest first
    file_suggestions: dict[str, Suggestion]  # file key -> the newest whole-file resolution
    audit: Audit | None  # None when the sync is not built yet (no result to audit)
    store: ResolutionStore  # where approvals are learned
    # The dev base's file, for each file with a probable accident outside its
    # hunks: the workspace needs it to tell whether such a line is back (after
    # a restart too), and to restore it.
    dev_files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Merges of dev on top of the sync merge: the dev side shown is the old dev
    # base's, and no repair can be written until they are folded (services/write/fold.py).
    merges_on_top: tuple[str, ...] = ()

    @property
    def built(self) -> bool:
        """Whether the sync merge exists (False: the next sync, merged in memory)."""
        return self.conflicts.head is not None


def load_workspace(
    session: SyncSession,
    steps: Steps = QUIET,
    *,
    audit: bool = True,
    known: ConflictSet | None = None,
) -> WorkspaceData:
    """Read the sync's conflicts and everything decided or learned about them.

    Without ``audit`` the data holds no audit (:func:`load_accidents` reads it
    afterwards): the workspace shows the conflicts first and the accidents when
    they arrive, the audit being the slowest read by far on a large sync.
    ``known`` is a :class:`ConflictSet` already read (by the Slice screen):
    used if it is of the same merge and head, instead of merging again.
    """
    git, refs, config = session.git, session.refs, session.config
    steps("Finding the sync merge")
    merge = session.merge
    if merge is not None:
        dev_base, slice_tip, head = merge.dev_base, merge.slice_tip, refs.head
    else:
        # Not built yet: merge dev's tip with the slice tip the bot would take.
        line = main_line(git, refs.dev, refs.main)[: config.slice_size]
        dev_base, slice_tip, head = refs.dev, (line[-1] if line else refs.main), None
    if known is not None and (known.dev_side, known.main_side, known.head) == (
        dev_base,
        slice_tip,
        head,
    ):
        conflicts = known
    else:
        steps("Re-merging to find the conflicts")
        # As the Slice screen and the report read them (with the re-merge's file list):
        # one result kept by commit serves all three.
        remerge_of = merge.sha if merge is not None else None
        conflicts = sync_conflicts(session, dev_base, slice_tip, head, remerge_of=remerge_of)
    steps("Loading your decisions")
    branch = refs.branch
    loaded = load_state(git, SyncKey(dev_base, slice_tip), branch=branch, head=head)
    store = ResolutionStore.open(git)
    suggestions = store.suggest_hunks(h.key for f in conflicts.files for h in f.hunks)
    file_suggestions = {
        f.file_key: found
        for f in conflicts.files
        if (found := store.suggest_file(f.file_key)) is not None
    }
    blobs = set(loaded.state.blobs())
    blobs |= {blob for f in conflicts.files for blob in shown_blobs(f)}  # whole files, to show
    blobs |= {s.blob for s in file_suggestions.values() if s.blob is not None}
    blobs |= {s.blob for found in suggestions.values() for s in found if s.blob is not None}
    # A file over the large-file limit is shown and written by blob id: its texts are not read.
    contents = read_blobs(git, blobs, limit=git.large_file_limit)
    texts = {oid: tuple(bytes_to_lines(data)) for oid, data in contents.items()}
    data = WorkspaceData(
        conflicts,
        loaded,
        branch,
        texts,
        suggestions,
        file_suggestions,
        None,
        store,
        merges_on_top=merge.merges_on_top if merge is not None else (),
    )
    if not audit:
        return data
    judged, dev_files = load_accidents(session, conflicts, steps)
    return replace(data, audit=judged, dev_files=dev_files)


def load_accidents(
    session: SyncSession, conflicts: ConflictSet, steps: Steps = QUIET
) -> tuple[Audit | None, dict[str, tuple[str, ...]]]:
    """The audit of the sync's result (numbered as the merge's hunks are), and the dev
    base's file of each conflicted file with an accident outside its hunks.

    No audit (None) when the sync is not built yet: there is no result to audit.
    """
    git, refs = session.git, session.refs
    merge = session.merge
    if merge is None or conflicts.head is None:
        return None, {}
    ours = sync_ours(git, refs.head, merge.sha, merge.dev_base, refs.dev)
    judged = sync_audit(session, merge, ours, conflicts, steps)
    audit = in_dev_base(git, judged)  # numbered as the merge's hunks are
    return audit, _dev_files_for_outside_accidents(git, conflicts, audit)


def _dev_files_for_outside_accidents(
    git: Git, conflicts: ConflictSet, audit: Audit | None
) -> dict[str, tuple[str, ...]]:
    if audit is None:
        return {}
    wanted: dict[str, str] = {}
    for conflict in conflicts.files:
        if conflict.dev_blob is None or conflict.whole_file_only:
            continue
        for finding in audit.in_file(conflict.path):
            outside = hunk_holding_dev_line(conflict, finding.line) is None
            if finding.is_accident and outside:
                wanted[conflict.path] = conflict.dev_blob
                break
    blobs = read_blobs(git, set(wanted.values()))
    return {
        path: tuple(bytes_to_lines(blobs[blob])) for path, blob in wanted.items() if blob in blobs
    }


def side_file(session: SyncSession, conflict: ConflictFile, side: Action) -> bytes | None:
    """One side's whole file, for "take the whole file as dev's (or main's)".

    ``None`` where that side deleted the file (or never had it): taking it deletes the file.
    """
    blob = conflict.dev_blob if side is Action.DEV else conflict.main_blob
    return None if blob is None else read_blobs(session.git, [blob]).get(blob)


def dev_file(session: SyncSession, conflict: ConflictFile) -> tuple[str, ...] | None:
    """Dev's whole file as lines, to restore lost dev lines outside the hunks; ``None`` if gone."""
    if conflict.dev_blob is None:
        return None
    return tuple(read_lines(session.git, conflict.dev_blob))
