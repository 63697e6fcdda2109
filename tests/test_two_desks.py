"""Two desks on one sync: merged hunk by hunk; a hunk both decided is told to both."""

from __future__ import annotations

import pytest

from syncdesk.services.decisions.merge import merge_states
from syncdesk.services.decisions.models import (
    Action,
    FileChoice,
    FileStatus,
    HunkChoice,
    SyncKey,
    SyncState,
    choose_file,
    choose_hunk,
    set_status,
)
from syncdesk.services.decisions.store import StateFile
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_lines
from tests.gitrepo import GitRepo

SYNC = SyncKey("3" * 40, "4" * 40)


@pytest.fixture
def git(repo: GitRepo) -> Git:
    repo.commit("root", {"README.md": "hello\n"})
    return Git(repo.path)


def take(git: Git, state: SyncState, path: str, index: int, action: Action) -> SyncState:
    blob = write_lines(git, [f"{action.value} {index}\n"])
    return choose_hunk(state, path, HunkChoice(index, action, blob, key=f"k{index}"))


def action_of(state: SyncState, path: str, index: int) -> Action | None:
    choice = state.decisions(path).hunk(index)
    return None if choice is None else choice.action


def two_desks(git: Git) -> tuple[StateFile, SyncState, StateFile, SyncState]:
    """Two processes' handles on one sync (two StateFiles: what two processes hold)."""
    one, two = StateFile(git, SYNC), StateFile(git, SYNC)
    return one, one.load().state, two, two.load().state


def test_two_desks_deciding_different_hunks_of_one_file_keep_both(git):
    """Desk A takes main on hunk 1, desk B takes dev on hunk 2: the disk keeps both."""
    a, mine, b, theirs = two_desks(git)
    mine = take(git, mine, "f.py", 0, Action.MAIN)
    assert a.save(mine).both == ()
    theirs = take(git, theirs, "f.py", 1, Action.DEV)
    saved = b.save(theirs)
    assert saved.warning is None
    on_disk = StateFile(git, SYNC).load(remember=False).state
    assert (action_of(on_disk, "f.py", 0), action_of(on_disk, "f.py", 1)) == (
        Action.MAIN,
        Action.DEV,
    )
    # Desk A looks and rebases what it shows: B's hunk appears, its own stays.
    seen = a.check()
    assert seen is not None
    shown = merge_states(seen.base, mine, seen.disk).state
    assert (action_of(shown, "f.py", 0), action_of(shown, "f.py", 1)) == (Action.MAIN, Action.DEV)
    assert a.check() is None  # nothing new since


def test_a_hunk_both_desks_decided_is_told_to_both(git):
    a, mine, b, theirs = two_desks(git)
    a.save(take(git, mine, "f.py", 0, Action.MAIN))
    saved = b.save(take(git, theirs, "f.py", 0, Action.DEV))
    assert saved.both == ("f.py hunk 1",)
    assert saved.warning is not None and "f.py hunk 1" in saved.warning
    seen = a.check()
    assert seen is not None and action_of(seen.disk, "f.py", 0) is Action.DEV


def test_the_same_decision_in_both_desks_is_no_clash(git):
    a, mine, b, theirs = two_desks(git)
    a.save(take(git, mine, "f.py", 0, Action.MAIN))
    assert b.save(take(git, theirs, "f.py", 0, Action.MAIN)).both == ()


def test_an_approval_does_not_cover_a_hunk_another_desk_changed(git):
    a, mine, b, theirs = two_desks(git)
    mine = take(git, mine, "f.py", 0, Action.MAIN)
    mine = set_status(mine, "f.py", FileStatus.APPROVED)
    a.save(mine)
    saved = b.save(take(git, theirs, "f.py", 1, Action.DEV))
    merged = saved.disk.decisions("f.py")
    assert merged.status is FileStatus.RESOLVED
    assert {c.index for c in merged.hunks} == {0, 1}


def test_a_whole_file_choice_against_a_hunk_is_one_clash_the_later_keeps(git):
    a, mine, b, theirs = two_desks(git)
    a.save(take(git, mine, "f.py", 0, Action.MAIN))
    whole = choose_file(theirs, "f.py", FileChoice(Action.DELETED, None))
    saved = b.save(whole)
    assert saved.both == ("f.py (whole file)",)
    assert saved.disk.decisions("f.py").whole_file == whole.decisions("f.py").whole_file


def test_files_only_the_other_desk_changed_keep_its_undo_history(git):
    a, mine, b, theirs = two_desks(git)
    theirs = take(git, theirs, "g.py", 0, Action.MAIN)
    theirs = take(git, theirs, "g.py", 0, Action.DEV)
    b.save(theirs)
    saved = a.save(take(git, mine, "f.py", 0, Action.MAIN))
    assert saved.disk.file("g.py") == theirs.file("g.py")
    assert len(saved.disk.file("g.py").undo) == 2
