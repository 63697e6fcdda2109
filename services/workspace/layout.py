"""The conflict workspace's logic: what each hunk shows, and what each key decides.

Pure functions over :mod:`syncdesk.services.conflicts.models` and
:mod:`syncdesk.services.decisions.models`; the screen maps keys to them and a
:class:`~syncdesk.services.decisions.saver.Persister` saves each new state at once. A hunk
nobody decided shows the resolution recorded at the head of the sync branch:
the maintainer reviews what the bot (or a colleague) did, and changes only
what is wrong.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from syncdesk.services.audit.lines import plan_restore
from syncdesk.services.conflicts.models import ConflictFile, ConflictSet, Hunk
from syncdesk.services.conflicts.placement import place_hunks
from syncdesk.services.decisions.models import (
    Action,
    Decisions,
    FileChoice,
    FileStatus,
    HunkChoice,
    SyncState,
    choose_file,
    choose_hunk,
    set_status,
)
from syncdesk.services.lines import lines_to_bytes
from syncdesk.services.sync.policies import KEEP_DEV, OVERRIDE_FROM_MAIN

HUNK_ACTIONS = (Action.DEV, Action.MAIN, Action.UNION, Action.UNION_MAIN_FIRST, Action.BASE)


def whole_file_action(decisions: Decisions, policy: str | None) -> Action | None:
    """The whole-file resolution in force: the maintainer's, else the policy's.

    A maintainer who decided anything in the file (a hunk, a status) has
    overridden the policy.
    """
    if decisions.whole_file is not None:
        return decisions.whole_file.action
    if decisions.hunks or decisions.status is not FileStatus.UNRESOLVED:
        return None
    return {KEEP_DEV: Action.DEV, OVERRIDE_FROM_MAIN: Action.MAIN}.get(policy or "")


def blob_id(data: bytes) -> str:
    """The SHA-1 git gives ``data`` as a blob, computed without running git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def action_lines(hunk: Hunk, action: Action) -> tuple[str, ...]:
    """The lines a one-key hunk action puts in the result."""
    if action is Action.DEV:
        return hunk.dev
    if action is Action.MAIN:
        return hunk.main
    if action is Action.UNION:
        return hunk.union
    if action is Action.UNION_MAIN_FIRST:
        return hunk.union_main_first
    if action is Action.BASE:
        return hunk.base
    raise ValueError(f"{action} is not a one-key hunk action")


def hunk_results(
    conflict: ConflictFile,
    decisions: Decisions,
    texts: Mapping[str, Sequence[str]],
    policy: str | None = None,
) -> list[tuple[str, ...]]:
    """Each hunk's current lines: the maintainer's choice, else the head's, else the markers.

    A whole-file choice (or policy) of one side shows that side in every hunk.
    A choice recorded for a hunk with another key belongs to an earlier conflict at that
    position (the sync was rebuilt): it is ignored, never applied to a different hunk.
    """
    edited = edited_lines(decisions, texts)
    if edited is not None:
        return regions_of_edit(conflict, edited)
    whole = whole_file_action(decisions, policy)
    if whole is Action.DEV:
        return [hunk.dev for hunk in conflict.hunks]
    if whole is Action.MAIN:
        return [hunk.main for hunk in conflict.hunks]
    results = []
    for hunk in conflict.hunks:
        choice = decisions.hunk(hunk.index)
        if choice is not None and choice.key == hunk.key and choice.blob in texts:
            results.append(tuple(texts[choice.blob]))
        elif hunk.head is not None:
            results.append(hunk.head)
        else:
            results.append(hunk.conflict)
    return results


@dataclass(frozen=True, slots=True)
class Decided:
    """A new state, and the blobs it refers to that must be written before it is saved."""

    state: SyncState
    blobs: dict[str, bytes]


def decide_hunk(
    state: SyncState,
    conflict: ConflictFile,
    index: int,
    action: Action,
    lines: Sequence[str] | None = None,
    carried_from: str | None = None,
) -> Decided:
    """Resolve hunk ``index`` of ``conflict`` with ``action`` (``lines`` for an edit)."""
    hunk = conflict.hunks[index]
    chosen = tuple(lines) if lines is not None else action_lines(hunk, action)
    data = lines_to_bytes(chosen)
    blob = blob_id(data)
    choice = HunkChoice(index, action, blob, key=hunk.key, carried_from=carried_from)
    decided = {c.index for c in state.decisions(conflict.path).hunks} | {index}
    status = FileStatus.RESOLVED if len(decided) == len(conflict.hunks) else None
    return Decided(choose_hunk(state, conflict.path, choice, status=status), {blob: data})


def decide_file(
    state: SyncState, conflict: ConflictFile, action: Action, data: bytes | None
) -> Decided:
    """Resolve the whole file: ``data`` is its content, None to delete it."""
    blob = None if data is None else blob_id(data)
    choice = FileChoice(action, blob)
    blobs = {} if data is None or blob is None else {blob: data}
    return Decided(choose_file(state, conflict.path, choice), blobs)


def decide_side_by_id(state: SyncState, conflict: ConflictFile, action: Action) -> Decided:
    """Resolve a file too large to read as one side's version, named by its blob id.

    Nothing is read or stored: the blob is one the sync merge's parents hold
    (deleted if that side has none).
    """
    blob = conflict.dev_blob if action is Action.DEV else conflict.main_blob
    return decide_by_id(state, conflict, action, blob)


def decide_by_id(
    state: SyncState, conflict: ConflictFile, action: Action | None, blob: str | None
) -> Decided:
    """Resolve a file whole as ``blob``, which git already holds (None: delete the file).

    For a file too large to read: a side's version, or a resolution learned
    before (the carry-over store keeps its blobs). Nothing is read or stored.
    """
    final = Action.DELETED if blob is None else (action or Action.EDITED)
    return Decided(choose_file(state, conflict.path, FileChoice(final, blob)), {})


def decide_submodule(state: SyncState, conflict: ConflictFile, action: Action) -> Decided:
    """Resolve a submodule conflict as one side's commit (deleted if that side has none).

    The choice records no blob: a submodule's commit belongs to another
    repository, and a blob id the store cannot find would be dropped as lost.
    """
    side = conflict.dev_blob if action is Action.DEV else conflict.main_blob
    final = action if side is not None else Action.DELETED
    return Decided(choose_file(state, conflict.path, FileChoice(final, None)), {})


def file_status(state: SyncState, conflict: ConflictFile, policy: str | None = None) -> FileStatus:
    """Where ``conflict`` stands: approved by the maintainer, or whether markers would remain.

    A hunk nobody decided keeps the head's resolution, so a file is unresolved
    only while the head left markers in it and some of those hunks are undecided.
    """
    decisions = state.decisions(conflict.path)
    if decisions.status is FileStatus.APPROVED:
        return FileStatus.APPROVED
    if decisions.whole_file is not None or whole_file_action(decisions, policy) is not None:
        return FileStatus.RESOLVED
    if conflict.resolution != "unresolved":
        return FileStatus.RESOLVED
    decided = {choice.index for choice in decisions.hunks}
    pending = [h for h in conflict.hunks if h.index not in decided and h.resolution == "unresolved"]
    return FileStatus.UNRESOLVED if pending or not conflict.hunks else FileStatus.RESOLVED


def approve_file(state: SyncState, conflict: ConflictFile, policy: str | None) -> Decided | None:
    """Approve ``conflict`` exactly as the workspace shows it; None while it is unresolved.

    A policy's whole-file side applies only while nobody decided anything in
    the file, and approving is a decision: so a side that a policy put in
    force is recorded as the maintainer's explicit whole-file choice in the
    same undoable step, and the approved content stays what was on screen.
    """
    if file_status(state, conflict, policy) is FileStatus.UNRESOLVED:
        return None
    decisions = state.decisions(conflict.path)
    side = whole_file_action(decisions, policy)
    if decisions.whole_file is None and side in (Action.DEV, Action.MAIN):
        blob = conflict.dev_blob if side is Action.DEV else conflict.main_blob
        choice = FileChoice(side, None if conflict.type == "submodule" else blob)
        approved = choose_file(state, conflict.path, choice, status=FileStatus.APPROVED)
    else:
        approved = set_status(state, conflict.path, FileStatus.APPROVED)
    return Decided(approved, {})


def first_unresolved(
    state: SyncState, conflicts: ConflictSet, after: str | None = None
) -> ConflictFile | None:
    """The next file (after ``after``, wrapping) that is not approved."""
    files = list(conflicts.files)
    if not files:
        return None
    start = next((i + 1 for i, f in enumerate(files) if f.path == after), 0)
    for offset in range(len(files)):
        candidate = files[(start + offset) % len(files)]
        if file_status(state, candidate) is not FileStatus.APPROVED:
            return candidate
    return None


def hunk_holding_dev_line(conflict: ConflictFile, line: int) -> Hunk | None:
    """The hunk whose dev side holds line ``line`` (1-based) of the dev base's file."""
    for hunk in conflict.hunks:
        if hunk.dev_start <= line < hunk.dev_start + len(hunk.dev):
            return hunk
    return None


def restored(hunk: Hunk, current: Sequence[str], line: int) -> tuple[str, ...] | None:
    """``current`` (the hunk's result) with dev's line ``line`` and its lost neighbours back.

    None when the result already holds the line.
    """
    plan = plan_restore(hunk.dev, list(current), line - hunk.dev_start + 1)
    if plan is None:
        return None
    at = plan.insert_after
    return (*current[:at], *plan.lines, *current[at:])


def commons(conflict: ConflictFile) -> list[tuple[str, ...]]:
    """The common runs around the hunks: always one more than there are hunks."""
    runs: list[tuple[str, ...]] = [()]
    for segment in conflict.segments or ():
        if isinstance(segment, Hunk):
            runs.append(())
        else:
            runs[-1] = runs[-1] + segment.lines
    return runs


def locate(conflict: ConflictFile, lines: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each hunk sits in ``lines`` (0-based, half-open), None where it cannot be told.

    The same placement the head's reading uses (syncdesk.services.conflicts.placement), so an
    edited file is read the way the recorded resolution was.
    """
    candidates = [
        [h.dev, h.main, h.base, h.union, h.union_main_first, h.conflict, h.head or ()]
        for h in conflict.hunks
    ]
    placements = place_hunks(
        commons(conflict), list(lines), candidates, key=lambda line: line.rstrip("\r\n")
    )
    return [(p.start, p.end) if p.located else None for p in placements]


def edited_lines(
    decisions: Decisions, texts: Mapping[str, Sequence[str]]
) -> tuple[str, ...] | None:
    """The whole file as edited by hand (audit restores outside hunks, say), if it was."""
    whole = decisions.whole_file
    if whole is None or whole.action is not Action.EDITED or whole.blob is None:
        return None
    found = texts.get(whole.blob)
    return None if found is None else tuple(found)


def regions_of_edit(conflict: ConflictFile, edited: Sequence[str]) -> list[tuple[str, ...]]:
    """Each hunk's lines as they stand in a file edited whole (the markers where not found)."""
    results = []
    for hunk, where in zip(conflict.hunks, locate(conflict, edited), strict=True):
        results.append(tuple(edited[where[0] : where[1]]) if where else hunk.conflict)
    return results


def decide_in_edited(
    state: SyncState,
    conflict: ConflictFile,
    edited: Sequence[str],
    index: int,
    lines: Sequence[str],
    texts: Mapping[str, Sequence[str]],
) -> Decided | None:
    """A hunk decision inside a file already edited whole: the edit is kept around it.

    None when the hunk cannot be found in the edited file.
    """
    where = locate(conflict, edited)[index]
    if where is None:
        return None
    updated = [*edited[: where[0]], *lines, *edited[where[1] :]]
    return decide_file(state, conflict, Action.EDITED, lines_to_bytes(updated))


def restore_in_file(
    dev_file: Sequence[str], result: Sequence[str], line: int
) -> tuple[str, ...] | None:
    """``result`` (a whole file) with dev's line ``line`` and its lost neighbours back."""
    plan = plan_restore(list(dev_file), list(result), line)
    if plan is None:
        return None
    at = plan.insert_after
    return (*result[:at], *plan.lines, *result[at:])


@dataclass(frozen=True, slots=True)
class Layout:
    """The current result of a file as the view draws it: hunks, and the lines between them.

    ``gaps`` has one run more than there are hunks: the result's own lines
    before, between and after the hunks (the head's, with the repair's changes,
    not merge-tree's), so what the result pane shows is the file that would be
    written.
    """

    results: list[tuple[str, ...]]
    gaps: list[tuple[str, ...]]

    @property
    def lines(self) -> tuple[str, ...]:
        """The whole result file."""
        joined: list[str] = []
        for gap, result in zip(self.gaps, [*self.results, ()], strict=True):
            joined.extend(gap)
            joined.extend(result)
        return tuple(joined)


def layout(
    conflict: ConflictFile,
    decisions: Decisions,
    texts: Mapping[str, Sequence[str]],
    policy: str | None = None,
) -> Layout:
    """The file's current result, cut at its hunks."""
    results = hunk_results(conflict, decisions, texts, policy)
    edited = edited_lines(decisions, texts)
    if edited is not None:
        located = [cut for cut in locate(conflict, edited) if cut is not None]
        if len(located) == len(conflict.hunks):
            return Layout(results, _gaps(edited, located))
    elif whole_file_action(decisions, policy) is None and conflict.head_lines is not None:
        hunks = conflict.hunks
        if all(h.head is not None and h.head_start is not None for h in hunks):
            cuts = [
                (h.head_start - 1, h.head_start - 1 + len(h.head or ()))
                for h in hunks
                if h.head_start is not None
            ]
            return Layout(results, _gaps(conflict.head_lines, cuts))
    return Layout(results, commons(conflict))


def _gaps(lines: Sequence[str], cuts: list[tuple[int, int]]) -> list[tuple[str, ...]]:
    gaps, position = [], 0
    for start, end in cuts:
        gaps.append(tuple(lines[position:start]))
        position = end
    gaps.append(tuple(lines[position:]))
    return gaps
