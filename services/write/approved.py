"""What the maintainer approved, as the content each file should have at the new repair.

The workspace keeps decisions (hunk choices, whole-file choices, policies);
the writer needs files. For every *approved* conflicted file this works out
its final bytes exactly as the workspace showed them (the head's file with
the decided hunks spliced in, or the whole file chosen) and keeps only the
files that would differ from the head.
"""

from __future__ import annotations

from dataclasses import dataclass

from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.conflicts.read import read_conflicts
from syncdesk.services.decisions.models import Action, FileStatus, SyncKey, SyncState
from syncdesk.services.decisions.store import load_state
from syncdesk.services.errors import ServiceError
from syncdesk.services.git.objects import read_contents
from syncdesk.services.git.runner import Git
from syncdesk.services.lines import bytes_to_lines, encode_text
from syncdesk.services.sync.policies import policy_for
from syncdesk.services.sync.session import SyncSession
from syncdesk.services.workspace.layout import layout, whole_file_action
from syncdesk.services.write.models import FileChange


@dataclass(frozen=True, slots=True)
class Approved:
    """What the workspace's approvals amount to, for the writer and for what it says."""

    changes: list[FileChange]  # the approved files that differ from the head
    notes: tuple[str, ...]  # what loading the decisions had to say
    approved: int  # conflicted files approved
    conflicted: int  # conflicted files in all


def approved_changes(session: SyncSession) -> Approved:
    """The files the workspace's approved decisions change, relative to the head.

    Also what loading the decisions had to say (a corrupt state moved aside,
    choices dropped because their text is missing), for the user to hear, and
    how many of the conflicted files are approved.
    """
    git, refs = session.git, session.refs
    merge = session.merge
    if merge is None:
        raise ServiceError("this branch has no sync merge: there is no repair to write")
    conflicts = read_conflicts(git, merge.dev_base, merge.slice_tip, refs.head)
    key = SyncKey(merge.dev_base, merge.slice_tip)
    loaded = load_state(git, key, head=refs.head, remember=False)
    state = loaded.state
    approved = [c for c in conflicts.files if state.decisions(c.path).status is FileStatus.APPROVED]
    changes = changes_for(git, approved, state, session)
    return Approved(changes, tuple(loaded.notes), len(approved), len(conflicts.files))


def changes_for(
    git: Git, files: list[ConflictFile], state: SyncState, session: SyncSession
) -> list[FileChange]:
    """The final content of ``files`` under ``state``'s decisions, where it differs from head."""
    wanted: set[str] = set()
    for conflict in files:
        if not conflict.too_large:  # taken whole by blob id: never read (see _too_large)
            wanted |= state.decisions(conflict.path).blobs()
            wanted |= {b for b in (conflict.dev_blob, conflict.main_blob, conflict.head_blob) if b}
    blobs = read_contents(git, wanted, "blob")
    texts = {oid: tuple(bytes_to_lines(data)) for oid, data in blobs.items()}
    changes = []
    for conflict in files:
        if conflict.type == "submodule":
            target = _submodule_commit(conflict, state, session)
            if target != conflict.head_blob:
                path = conflict.head_path or conflict.path
                changes.append(FileChange(path, None, gitlink=target))
            continue
        if conflict.too_large:
            change = _too_large(conflict, state, session)
            if change is not None:
                changes.append(change)
            continue
        content = _content(conflict, state, session, blobs, texts)
        current = blobs.get(conflict.head_blob) if conflict.head_blob else None
        if content == current:
            continue
        path = conflict.head_path or conflict.path
        changes.append(FileChange(path, content, None if content is None else conflict.mode))
    return changes


def _content(
    conflict: ConflictFile,
    state: SyncState,
    session: SyncSession,
    blobs: dict[str, bytes],
    texts: dict[str, tuple[str, ...]],
) -> bytes | None:
    decisions = state.decisions(conflict.path)
    whole = decisions.whole_file
    if whole is not None:
        if whole.action is Action.DELETED or whole.blob is None:
            return None
        return _blob(blobs, whole.blob, conflict)
    policy = policy_for(conflict.path, session.config)
    side = whole_file_action(decisions, policy)
    if side is Action.DEV or side is Action.MAIN:
        chosen = conflict.dev_blob if side is Action.DEV else conflict.main_blob
        return None if chosen is None else _blob(blobs, chosen, conflict)
    if conflict.whole_file_only:
        # Approved as the head has it: nothing to change.
        return blobs.get(conflict.head_blob) if conflict.head_blob else None
    return encode_text("".join(layout(conflict, decisions, texts, policy).lines))


def _too_large(conflict: ConflictFile, state: SyncState, session: SyncSession) -> FileChange | None:
    """A file too large to read, resolved whole: its new blob named by id, or None if unchanged.

    Its choices are whole sides (a blob the sync merge's parents hold) or the
    head's file as it is; nothing about it is ever read.
    """
    decisions = state.decisions(conflict.path)
    whole = decisions.whole_file
    side = whole_file_action(decisions, policy_for(conflict.path, session.config))
    if whole is not None:
        blob = None if whole.action is Action.DELETED else whole.blob
    elif side is Action.DEV:
        blob = conflict.dev_blob
    elif side is Action.MAIN:
        blob = conflict.main_blob
    else:  # approved as the head has it
        blob = conflict.head_blob
    if blob == conflict.head_blob:
        return None
    path = conflict.head_path or conflict.path
    return FileChange(path, None, conflict.mode, blob=blob)


def _submodule_commit(conflict: ConflictFile, state: SyncState, session: SyncSession) -> str | None:
    """The commit a submodule conflict's path should name (None: no submodule there)."""
    decisions = state.decisions(conflict.path)
    whole = decisions.whole_file
    side = whole.action if whole is not None else None
    side = side or whole_file_action(decisions, policy_for(conflict.path, session.config))
    if side is Action.DELETED:
        return None
    if side is Action.DEV or side is Action.MAIN:
        return conflict.dev_blob if side is Action.DEV else conflict.main_blob
    return conflict.head_blob  # approved as the head has it


def _blob(blobs: dict[str, bytes], oid: str, conflict: ConflictFile) -> bytes:
    if oid not in blobs:
        raise ServiceError(f"the resolution of {conflict.display_path} is missing from git")
    return blobs[oid]
