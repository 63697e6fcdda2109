"""The state's journal: a save costs what it changed; replay gives back exactly what was saved."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from syncdesk.services.decisions import journal
from syncdesk.services.decisions.codec import encode_state
from syncdesk.services.decisions.models import (
    Action,
    FileChoice,
    FileStatus,
    HunkChoice,
    SyncKey,
    SyncState,
    choose_file,
    choose_hunk,
    clear_hunk,
    move_cursor,
    new_state,
    redo,
    set_status,
    undo,
)
from syncdesk.services.decisions.store import StateFile, load_state, save_state, state_path
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_lines
from tests.gitrepo import GitRepo

AT = "2023-11-14T22:13:20Z"
SYNC = SyncKey("1" * 40, "2" * 40)
PATHS = ("a.py", "b/c.py", "naïve\nname.py")


@pytest.fixture
def git(repo: GitRepo) -> Git:
    repo.commit("root", {"README.md": "hello\n"})
    return Git(repo.path)


def _blobs(git: Git) -> list[str]:
    return [write_lines(git, [f"resolution {n}\n"]) for n in range(4)]


# One step a maintainer can take: (kind, path, hunk, blob number).
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["hunk", "clear", "file", "delete", "approve", "undo", "redo", "cursor"]),
        st.sampled_from(PATHS),
        st.integers(0, 3),
        st.integers(0, 3),
    ),
    min_size=1,
    max_size=40,
)


def _step(state: SyncState, step: tuple[str, str, int, int], blobs: list[str]) -> SyncState:
    kind, path, index, blob = step
    if kind == "hunk":
        return choose_hunk(state, path, HunkChoice(index, Action.MAIN, blobs[blob], key=str(index)))
    if kind == "clear":
        return clear_hunk(state, path, index)
    if kind == "file":
        return choose_file(state, path, FileChoice(Action.EDITED, blobs[blob]))
    if kind == "delete":
        return choose_file(state, path, FileChoice(Action.DELETED, None))
    if kind == "approve":
        return set_status(state, path, FileStatus.APPROVED)
    if kind == "undo":
        return undo(state, path)
    if kind == "redo":
        return redo(state, path)
    return move_cursor(state, path, index)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS, sync_tip=st.integers(0, 2**32))
def test_any_sequence_of_decisions_reloads_exactly_as_saved(git, steps, sync_tip):
    """Each save appends what changed; a fresh process replays it to the very same state."""
    sync = SyncKey("1" * 40, hashlib.sha1(str(sync_tip).encode()).hexdigest())
    blobs = _blobs(git)
    writer = StateFile(git, sync)
    state = writer.load(branch="main2dev/x").state
    for step in steps:
        state = _step(state, step, blobs)
        writer.save(state)
    assert StateFile(git, sync).load().state == state


def test_a_save_appends_one_short_line_and_leaves_the_snapshot_alone(git):
    """The cost of a save is its decision, not the state: 400 decided files, one more."""
    blob = write_lines(git, ["x\n"])
    state = load_state(git, SYNC).state
    for number in range(400):
        state = choose_hunk(state, f"pkg/file_{number:03}.py", HunkChoice(0, Action.DEV, blob))
    save_state(git, state)
    snapshot = state_path(git, SYNC)
    before = (snapshot.stat().st_ino, snapshot.stat().st_mtime_ns, snapshot.read_bytes())
    size = journal.journal_path(snapshot).stat().st_size
    state = choose_hunk(state, "pkg/file_200.py", HunkChoice(1, Action.MAIN, blob))
    save_state(git, state)
    assert (snapshot.stat().st_ino, snapshot.stat().st_mtime_ns, snapshot.read_bytes()) == before
    grown = journal.journal_path(snapshot).stat().st_size - size
    assert 0 < grown < 600 < len(before[2]) // 50  # one line, a fiftieth of the snapshot
    assert load_state(git, SYNC, remember=False).state == state


def test_a_long_journal_is_folded_into_the_snapshot(git, monkeypatch):
    monkeypatch.setattr(journal, "COMPACT_AT_BYTES", 2000)
    blobs = _blobs(git)
    state = load_state(git, SYNC).state
    generations = set()
    for number in range(60):
        state = choose_hunk(state, "a.py", HunkChoice(number, Action.MAIN, blobs[number % 4]))
        save_state(git, state)
        snapshot = state_path(git, SYNC)
        generations.add(json.loads(snapshot.read_bytes())["generation"])
        # Folded once it outgrows the snapshot: never more than that and one line.
        assert journal.journal_path(snapshot).stat().st_size < 2 * max(
            2000, snapshot.stat().st_size
        )
    assert len(generations) > 2
    assert load_state(git, SYNC, remember=False).state == state


def test_a_torn_last_line_is_ignored_then_cut_before_the_next_save(git):
    """A writer killed inside its write leaves part of a line: never acknowledged, never joined."""
    blobs = _blobs(git)
    state = load_state(git, SYNC).state
    state = choose_hunk(state, "a.py", HunkChoice(0, Action.MAIN, blobs[0]))
    save_state(git, state)
    path = journal.journal_path(state_path(git, SYNC))
    with path.open("ab") as handle:
        handle.write(b'{"at":"2023-11-14T22:13:20Z","ops":[{"op":"dec')
    loaded = load_state(git, SYNC)
    assert (loaded.state, loaded.notes) == (state, ())
    state = choose_hunk(loaded.state, "a.py", HunkChoice(1, Action.DEV, blobs[1]))
    save_state(git, state)
    assert load_state(git, SYNC, remember=False).state == state
    assert b'"op":"dec{' not in path.read_bytes()


def test_a_damaged_line_keeps_what_came_before_and_moves_the_journal_aside(git):
    blobs = _blobs(git)
    state = load_state(git, SYNC).state
    kept = state = choose_hunk(state, "a.py", HunkChoice(0, Action.MAIN, blobs[0]))
    save_state(git, state)
    for index in (1, 2):  # two journal lines after the first save's snapshot
        state = choose_hunk(state, "a.py", HunkChoice(index, Action.MAIN, blobs[index]))
        save_state(git, state)
    path = journal.journal_path(state_path(git, SYNC))
    lines = path.read_bytes().split(b"\n")
    lines[1] = b"{not json"
    path.write_bytes(b"\n".join(lines))
    loaded = StateFile(git, SYNC).load()
    assert loaded.state.decisions("a.py") == kept.decisions("a.py")
    assert "damaged at line 2" in loaded.notes[0] and "moved aside" in loaded.notes[0]
    assert list(path.parent.glob("*.journal.corrupt-*"))
    assert StateFile(git, SYNC).load().notes == ()  # mended: the next load is clean


def test_a_journal_of_another_generation_is_not_replayed_twice(git):
    """A kill between a compaction's two writes leaves the old journal beside the new snapshot."""
    blobs = _blobs(git)
    state = load_state(git, SYNC).state
    state = choose_hunk(state, "a.py", HunkChoice(0, Action.MAIN, blobs[0]))
    save_state(git, state)
    state = undo(state, "a.py")  # replaying this twice would step back past the start
    save_state(git, state)
    snapshot = state_path(git, SYNC)
    old_journal = journal.journal_path(snapshot).read_bytes()
    document = json.loads(snapshot.read_bytes())
    snapshot.write_text(
        json.dumps({**encode_state(state), "generation": document["generation"] + 1})
    )
    journal.journal_path(snapshot).write_bytes(old_journal)
    assert StateFile(git, SYNC).load().state == state


def test_a_symlink_in_place_of_the_journal_is_not_written_through(git, tmp_path):
    blobs = _blobs(git)
    state = load_state(git, SYNC).state
    save_state(git, choose_hunk(state, "a.py", HunkChoice(0, Action.MAIN, blobs[0])))
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    path = journal.journal_path(state_path(git, SYNC))
    path.unlink()
    path.symlink_to(target)
    other = StateFile(git, SYNC)
    loaded = other.load()
    assert "symbolic link" in loaded.notes[0]
    other.save(choose_hunk(loaded.state, "a.py", HunkChoice(1, Action.DEV, blobs[1])))
    assert target.read_bytes() == b""
    assert other.load(remember=False).state.decisions("a.py").hunk(1) is not None


def test_entries_carry_new_decisions_not_whole_undo_stacks(git):
    blobs = _blobs(git)
    state = new_state(SYNC, at=AT)
    for number in range(50):
        state = choose_hunk(state, "a.py", HunkChoice(number, Action.MAIN, blobs[number % 4]))
    after = choose_hunk(state, "a.py", HunkChoice(50, Action.DEV, blobs[0]))
    line = journal.entry_between(state, after)
    assert line is not None and json.loads(line)["ops"][0]["op"] == "decide"
    assert json.loads(journal.entry_between(after, undo(after, "a.py")) or b"")["ops"] == [
        {"op": "undo", "path": "a.py", "at": undo(after, "a.py").file("a.py").updated_at}
    ]
