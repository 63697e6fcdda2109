"""A writer process for the kill -9 tests: it saves growing states until it is killed.

``python -m tests.killwriter MODE PATH`` resumes from what is on disk, prints
``ready <step>``, then forever: builds the next state, saves it, and prints
the step number once the save has returned (an *ack*; stdout is flushed, so an
ack written is an ack the parent reads, even after SIGKILL). The parent kills
it at a random moment and checks that the file on disk is the last acked state
or the one after it.

A third argument names a *phase*: the writer then SIGKILLs itself at that
point of its third save (:data:`PHASES`), for the windows random kills rarely hit.

Modes:
- ``state``: :func:`syncdesk.services.decisions.store.save_state` in the repository at PATH
  (blobs, the JSON file, the pin ref: the real path of a decision);
- ``atomic``: :func:`syncdesk.services.git.atomic.write_atomic` of a growing JSON to PATH;
- ``naive``: ``open('w')`` and chunked writes, the control that must fail.

The states are deterministic functions of the step, so the parent can rebuild
the expected ones (:func:`state_at`, :func:`document_at`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from syncdesk.services.decisions.models import (
    Action,
    FileStatus,
    HunkChoice,
    SyncKey,
    SyncState,
    choose_hunk,
    move_cursor,
    new_state,
    set_status,
)

SYNC = SyncKey("d" * 40, "e" * 40)
STAMP = "2023-11-14T22:13:20Z"


def hunk_lines(step: int) -> list[str]:
    """The resolved lines chosen at ``step`` (distinct per step, growing)."""
    return [f"resolved {step}: line {n}\n" for n in range(1 + step % 9)]


def sha1_blob(data: bytes) -> str:
    """git's blob id of ``data`` (SHA-1 repositories), computed without git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def next_state(state: SyncState, step: int, blob_of: Callable[[bytes], str]) -> SyncState:
    """State ``step`` from state ``step - 1``: one more hunk decided, the cursor moved."""
    from syncdesk.services.lines import lines_to_bytes  # not at the top: it imports GitPython

    path = f"pkg/module_{step % 7}.py"
    blob = blob_of(lines_to_bytes(hunk_lines(step)))
    choice = HunkChoice(step // 7, Action.EDITED, blob, key=f"{step:040x}", decided_at=STAMP)
    state = choose_hunk(state, path, choice, at=STAMP)
    if step % 5 == 0:
        state = set_status(state, path, FileStatus.APPROVED, at=STAMP)
    return move_cursor(state, path, step // 7, at=STAMP)


def state_at(step: int) -> SyncState:
    """The state the writer saves at ``step`` (0: the fresh state)."""
    state = new_state(SYNC, branch="main2dev/kill", at=STAMP)
    for number in range(1, step + 1):
        state = next_state(state, number, sha1_blob)
    return state


def steps_in(state: SyncState) -> int:
    """Which step a saved state is (each step decides exactly one more hunk)."""
    return sum(len(item.current.hunks) for item in state.files)


def document_at(step: int) -> dict[str, Any]:
    """The JSON document the ``atomic`` and ``naive`` writers save at ``step``."""
    return {"step": step, "lines": [f"line {n} of step {step}" + "." * 60 for n in range(step * 8)]}


# Where an armed writer dies in its third save: (whether that save is then on
# disk, how many temporary files it leaves). A save appends one journal line
# and fsyncs it; the compact-* phases fold the journal into the snapshot after
# every save (two atomic writes: the snapshot, then a new journal).
PHASES = {
    "blob-written": (False, 0),  # the resolved text is in git, the journal line not written
    "line-written": (True, 0),  # written, not yet fsynced: a kill keeps the page cache
    "line-synced": (True, 0),  # fsynced, no ack yet
    "before-pin": (True, 0),  # saved, its blobs not yet pinned against gc
    "compact-temp-written": (True, 1),  # the new snapshot's temporary file, not fsynced
    "compact-before-replace": (True, 1),  # fsynced, not yet renamed over the snapshot
    "compact-after-replace": (True, 0),  # the new snapshot in place, the old journal beside it
}
_saves = 0  # saves started in this life


def _die_at(phase: str) -> None:
    """Arm the writer to kill itself at ``phase`` of its third save."""
    import os
    import signal

    import syncdesk.services.decisions.store
    from syncdesk.services.decisions.store import StateFile
    from syncdesk.services.git import storage

    def die() -> None:
        if _saves == 3:
            os.kill(os.getpid(), signal.SIGKILL)

    store = syncdesk.services.decisions.store
    targets: dict[str, tuple[Any, str, bool]] = {
        "blob-written": (storage, "write_blob", False),
        "line-written": (os, "fsync", True),
        "line-synced": (os, "fsync", False),
        "before-pin": (store, "pin_blobs", True),
        "compact-temp-written": (os, "fsync", True),
        "compact-before-replace": (os, "replace", True),
        "compact-after-replace": (os, "replace", False),
    }
    if phase.startswith("compact-"):

        def always(self: StateFile, journal_size: int, snapshot_size: int) -> bool:
            return True

        StateFile.compaction_due = always  # type: ignore[method-assign]
        if phase == "compact-temp-written":
            _arm_after_append(die)
            return
    owner, name, before = targets[phase]
    real = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if before:
            die()
        result = real(*args, **kwargs)
        if not before:
            die()
        return result

    setattr(owner, name, wrapper)


def _arm_after_append(die: Callable[[], None]) -> None:
    """Die at the first fsync after the third save's journal line: the compaction's."""
    import os

    from syncdesk.services.decisions import journal

    real_append, real_fsync = journal.append_line, os.fsync
    appended = False

    def append(*args: Any, **kwargs: Any) -> Any:
        nonlocal appended
        result = real_append(*args, **kwargs)
        appended = _saves == 3
        return result

    def fsync(descriptor: Any) -> None:
        if appended:
            die()
        real_fsync(descriptor)

    journal.append_line = append
    os.fsync = fsync  # type: ignore[assignment]


def run_state(repo: Path, phase: str | None) -> None:
    global _saves
    from syncdesk.services.decisions.store import load_state, save_state
    from syncdesk.services.git import storage
    from syncdesk.services.git.runner import Git

    git = Git(repo)
    state = load_state(git, SYNC, branch="main2dev/kill").state
    step = steps_in(state)
    if step == 0:
        state = state_at(0)  # the fixed timestamps the parent expects
    if phase is not None:
        _die_at(phase)
    _ack(f"ready {step}")
    while True:
        step += 1
        _saves += 1
        state = next_state(state, step, lambda data: storage.write_blob(git, data))
        save_state(git, state)
        _ack(str(step))


def run_documents(path: Path, *, naive: bool) -> None:
    from syncdesk.services.git.atomic import write_atomic

    step = json.loads(path.read_text())["step"] if path.exists() else 0
    _ack(f"ready {step}")
    while True:
        step += 1
        data = json.dumps(document_at(step)).encode()
        if naive:
            with path.open("wb") as handle:
                for start in range(0, len(data), 4096):
                    handle.write(data[start : start + 4096])
                    handle.flush()
        else:
            write_atomic(path, data)
        _ack(str(step))


def _ack(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main() -> None:
    mode, path = sys.argv[1], Path(sys.argv[2])
    if mode == "state":
        run_state(path, sys.argv[3] if len(sys.argv) > 3 else None)
    else:
        run_documents(path, naive=mode == "naive")


if __name__ == "__main__":
    main()
