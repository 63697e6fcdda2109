"""The conflict workspace's logic: what each hunk shows, and what each key decides.

Pure functions over :mod:`services.conflict_models` and
:mod:`services.state_model`; the screen maps keys to them and a
:class:`~services.persister.Persister` saves each new state at once. A hunk
nobody decided shows the resolution recorded at the head of the sync branch:
the maintainer reviews what the bot (or a colleague) did, and changes only
what is wrong.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.audit import plan_restore
from services.conflict_models import ConflictFile, ConflictSet, Hunk, rebuild
from services.policies import KEEP_DEV, OVERRIDE_FROM_MAIN
from services.state_model import (
    Action,
    Decisions,
    FileChoice,
    FileStatus,
    HunkChoice,
    SyncState,
    choose_file,
    choose_hunk,
)
from services.storage import lines_to_bytes

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


def result_text(conflict: ConflictFile, results: Sequence[Sequence[str]]) -> str | None:
    """The whole file from its segments with ``results`` in the hunks (None: no segments)."""
    if conflict.segments is None:
        return None
    return rebuild(conflict.segments, list(results))


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


def spliced_result(conflict: ConflictFile, results: Sequence[Sequence[str]]) -> str | None:
    """The whole result file: the head's file with each hunk's region replaced by ``results``.

    Splicing into the head's own file keeps whatever the head changed outside the
    hunks (an evil merge, the repair commit). When a hunk could not be located in
    the head, the file is rebuilt from merge-tree's common lines instead.
    """
    hunks = conflict.hunks
    located = all(h.head is not None and h.head_start is not None for h in hunks)
    if conflict.head_lines is None or not located:
        return result_text(conflict, results)
    lines = list(conflict.head_lines)
    # Replace from the bottom up so earlier regions keep their line numbers.
    for hunk, chosen in sorted(
        zip(hunks, results, strict=True), key=lambda p: -(p[0].head_start or 0)
    ):
        assert hunk.head is not None and hunk.head_start is not None
        start = hunk.head_start - 1
        lines[start : start + len(hunk.head)] = chosen
    return "".join(lines)


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
