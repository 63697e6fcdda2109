"""A sync's workspace state: resumed exactly; never lost to kill -9, corruption or gc."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time

import pytest

from syncdesk.services.decisions.models import (
    UNDO_LIMIT,
    Action,
    Cursor,
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
from syncdesk.services.decisions.store import (
    list_states,
    load_state,
    pin_ref,
    save_state,
    state_path,
    states_dir,
)
from syncdesk.services.git.atomic import TEMP_MARK, NewerFormatError, StorageError, clean_orphans
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import (
    STALE_LOCK_SECONDS,
    read_lines,
    storage_dir,
    write_blob,
    write_lines,
)
from syncdesk.services.lines import bytes_to_lines, lines_to_bytes
from tests.gitrepo import GitRepo
from tests.killharness import kill_random, kill_runs, run_and_kill, run_until_death
from tests.killwriter import PHASES, SYNC, state_at, steps_in

AT = "2023-11-14T22:13:20Z"
SYNC_A = SyncKey("a" * 40, "b" * 40)
SYNC_B = SyncKey("a" * 40, "c" * 40)  # the same slice rebuilt on another dev base... or tip


@pytest.fixture
def git(repo: GitRepo) -> Git:
    repo.commit("root", {"README.md": "hello\n"})
    return Git(repo.path)


def hunk(git: Git, index: int, text: str, action: Action = Action.EDITED, **extra) -> HunkChoice:
    return HunkChoice(index, action, write_lines(git, [text]), **extra)


def chosen(state: SyncState, path: str, index: int) -> HunkChoice:
    choice = state.decisions(path).hunk(index)
    assert choice is not None, f"no choice for hunk {index} of {path}"
    return choice


def rich_state(git: Git) -> SyncState:
    """A state using every field: hunk and whole-file choices, deletion, undo, redo, cursor."""
    state = new_state(SYNC_A, branch="main2dev/demo", head="f" * 40, at=AT)
    state = choose_hunk(state, "pkg/core.py", hunk(git, 0, "dev line\n", Action.DEV), at=AT)
    state = choose_hunk(
        state,
        "pkg/core.py",
        hunk(git, 3, "edited\r\nno final newline", key="ab" * 20, carried_from="approved in x"),
        status=FileStatus.RESOLVED,
        at=AT,
    )
    state = set_status(state, "pkg/core.py", FileStatus.APPROVED, at=AT)
    state = choose_file(state, "gone.py", FileChoice(Action.DELETED, None), at=AT)
    whole = FileChoice(Action.EDITED, write_blob(git, b"\xff\xfe binary-ish\n"))
    state = choose_file(state, "naïve\nname.bin", whole, at=AT)
    state = choose_hunk(state, "docs/a.md", hunk(git, 1, "first\n"), at=AT)
    state = choose_hunk(state, "docs/a.md", hunk(git, 1, "second\n"), at=AT)
    state = undo(state, "docs/a.md", at=AT)  # leaves a redo entry
    return move_cursor(state, "pkg/core.py", 3, at=AT)


# -- where the state lives -----------------------------------------------------------


def test_state_lives_under_the_git_dir_not_the_work_tree(git, repo):
    state = rich_state(git)
    assert save_state(git, state) is None
    path = state_path(git, SYNC_A)
    assert path == repo.path / ".git" / "syncdesk" / "syncs" / f"{SYNC_A.name}.json"
    assert path.is_file()
    assert repo.git("status", "--porcelain", "--untracked-files=all") == ""


def test_a_linked_worktree_shares_the_main_checkouts_state(git, repo, tmp_path):
    repo.git("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    in_worktree = Git(tmp_path / "wt")
    assert in_worktree.git_dir != git.git_dir  # .git/worktrees/wt
    assert storage_dir(in_worktree) == repo.path / ".git" / "syncdesk"
    save_state(in_worktree, rich_state(in_worktree))
    loaded = load_state(git, SYNC_A)
    assert loaded.resumed
    assert loaded.state == rich_state(git)
    assert not (tmp_path / "wt" / "syncdesk").exists()


def test_a_bare_repository_keeps_its_state_in_itself(repo, tmp_path):
    repo.commit("root", {"README.md": "hello\n"})
    bare_path = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(bare_path)], check=True)
    bare = Git(bare_path)
    assert bare.work_tree is None
    state = rich_state(bare)
    save_state(bare, state)
    assert state_path(bare, SYNC_A).parent == bare_path / "syncdesk" / "syncs"
    assert load_state(bare, SYNC_A).state == state


def test_two_syncs_do_not_collide_and_a_rebuild_starts_afresh(git):
    first = choose_hunk(new_state(SYNC_A, at=AT), "a.py", hunk(git, 0, "a\n"), at=AT)
    second = choose_hunk(new_state(SYNC_B, at=AT), "a.py", hunk(git, 0, "b\n"), at=AT)
    save_state(git, first)
    save_state(git, second)
    assert load_state(git, SYNC_A).state == first
    assert load_state(git, SYNC_B).state == second
    rebuilt = SyncKey("9" * 40, "b" * 40)
    fresh = load_state(git, rebuilt, branch="main2dev/demo")
    assert not fresh.resumed
    assert fresh.state.files == ()
    assert fresh.state.branch == "main2dev/demo"
    assert list_states(git) == sorted([SYNC_A, SYNC_B], key=lambda key: key.name)


def test_a_sync_key_must_be_full_commit_ids():
    with pytest.raises(ValueError, match="not a full commit id"):
        SyncKey("abc123", "b" * 40)
    with pytest.raises(ValueError, match="not a full commit id"):
        SyncKey("a" * 40, "../../etc/passwd")


# -- round trips ---------------------------------------------------------------------


def test_every_field_survives_a_save_and_a_reload(git):
    state = rich_state(git)
    save_state(git, state)
    loaded = load_state(git, SYNC_A)
    assert loaded.resumed
    assert loaded.notes == ()
    assert loaded.state == state
    assert loaded.state.cursor == Cursor("pkg/core.py", 3)
    decided = loaded.state.decisions("pkg/core.py")
    assert decided.status is FileStatus.APPROVED
    assert read_lines(git, chosen(loaded.state, "pkg/core.py", 3).blob) == [
        "edited\r\n",
        "no final newline",
    ]
    assert loaded.state.decisions("gone.py").whole_file == FileChoice(
        Action.DELETED, None, None, AT
    )


def test_the_file_is_plain_json_with_a_schema_version(git):
    save_state(git, rich_state(git))
    document = json.loads(state_path(git, SYNC_A).read_text())
    assert (document["kind"], document["schema"]) == ("syncdesk-sync-state", 1)
    assert document["sync"] == {"dev_base": "a" * 40, "slice_tip": "b" * 40}


@pytest.mark.parametrize(
    "lines",
    [
        ["a\n", "b\n"],
        ["crlf\r\n", "mixed\n", "last without newline"],
        ["form\x0cfeed and \u2028 separator stay one line\n"],
        [],
        ["invalid \udcff\udcfe utf-8 bytes\n"],
    ],
    ids=["plain", "crlf-no-final-newline", "form-feed", "empty", "invalid-utf8"],
)
def test_resolved_lines_round_trip_through_a_blob_exactly(git, lines):
    blob = write_lines(git, lines)
    assert read_lines(git, blob) == lines
    assert bytes_to_lines(lines_to_bytes(lines)) == lines


def test_invalid_utf8_is_stored_as_its_original_bytes(git):
    original = b"caf\xe9 latin-1\n"
    lines = bytes_to_lines(original)
    assert lines_to_bytes(lines) == original
    blob = write_lines(git, lines)
    assert Git.run(git, ["cat-file", "blob", blob]).stdout == original


# -- decisions, undo and redo ---------------------------------------------------------


def test_undo_and_redo_step_through_one_files_decisions(git):
    state = new_state(SYNC_A, at=AT)
    dev, main = hunk(git, 0, "dev\n", Action.DEV), hunk(git, 0, "main\n", Action.MAIN)
    state = choose_hunk(state, "a.py", dev, at=AT)
    state = choose_hunk(state, "a.py", main, at=AT)
    state = choose_hunk(state, "b.py", dev, at=AT)  # another file: its own stack
    assert chosen(state, "a.py", 0).action is Action.MAIN

    state = undo(state, "a.py", at=AT)
    assert chosen(state, "a.py", 0).action is Action.DEV
    assert chosen(state, "b.py", 0).action is Action.DEV
    state = undo(state, "a.py", at=AT)
    assert state.decisions("a.py").hunks == ()
    assert undo(state, "a.py", at=AT) == state  # nothing more to undo
    state = redo(redo(state, "a.py", at=AT), "a.py", at=AT)
    assert chosen(state, "a.py", 0).action is Action.MAIN
    assert redo(state, "a.py", at=AT) == state


def test_a_new_decision_clears_the_redo_stack(git):
    state = choose_hunk(new_state(SYNC_A, at=AT), "a.py", hunk(git, 0, "x\n"), at=AT)
    state = undo(state, "a.py", at=AT)
    state = choose_hunk(state, "a.py", hunk(git, 0, "y\n"), at=AT)
    assert state.file("a.py").redo == ()


def test_choosing_again_what_is_chosen_is_not_an_undo_step(git):
    choice = hunk(git, 0, "x\n")
    once = choose_hunk(new_state(SYNC_A, at=AT), "a.py", choice, at=AT)
    twice = choose_hunk(once, "a.py", choice, at="2030-01-01T00:00:00Z")
    assert twice.file("a.py").undo == once.file("a.py").undo


def test_undo_is_bounded(git):
    state = new_state(SYNC_A, at=AT)
    for index in range(UNDO_LIMIT + 20):
        state = choose_hunk(state, "a.py", hunk(git, 0, f"{index}\n"), at=AT)
    assert len(state.file("a.py").undo) == UNDO_LIMIT


def test_changing_an_approved_file_asks_for_approval_again(git):
    state = choose_hunk(new_state(SYNC_A, at=AT), "a.py", hunk(git, 0, "x\n"), at=AT)
    state = set_status(state, "a.py", FileStatus.APPROVED, at=AT)
    state = choose_hunk(state, "a.py", hunk(git, 1, "y\n"), at=AT)
    assert state.decisions("a.py").status is FileStatus.RESOLVED
    state = undo(state, "a.py", at=AT)
    assert state.decisions("a.py").status is FileStatus.APPROVED


def test_a_whole_file_choice_replaces_the_hunk_choices_and_undo_brings_them_back(git):
    state = choose_hunk(new_state(SYNC_A, at=AT), "a.py", hunk(git, 2, "x\n"), at=AT)
    main_blob = write_blob(git, b"main's file\n")
    state = choose_file(state, "a.py", FileChoice(Action.MAIN, main_blob), at=AT)
    decided = state.decisions("a.py")
    assert (decided.hunks, decided.status) == ((), FileStatus.RESOLVED)
    assert decided.whole_file is not None
    assert decided.whole_file.blob == main_blob
    state = choose_hunk(state, "a.py", hunk(git, 0, "y\n"), at=AT)
    assert state.decisions("a.py").whole_file is None  # back to hunk by hunk
    state = undo(undo(state, "a.py", at=AT), "a.py", at=AT)
    assert [c.index for c in state.decisions("a.py").hunks] == [2]


def test_clear_hunk_falls_back_to_the_heads_resolution(git):
    state = choose_hunk(new_state(SYNC_A, at=AT), "a.py", hunk(git, 0, "x\n"), at=AT)
    state = choose_hunk(state, "a.py", hunk(git, 1, "y\n"), at=AT)
    state = clear_hunk(state, "a.py", 0, status=FileStatus.UNRESOLVED, at=AT)
    decided = state.decisions("a.py")
    assert ([c.index for c in decided.hunks], decided.status) == ([1], FileStatus.UNRESOLVED)


def test_states_are_immutable_and_helpers_return_new_ones(git):
    state = new_state(SYNC_A, at=AT)
    moved = move_cursor(state, "a.py", 4, at=AT)
    assert state.cursor == Cursor()
    assert moved.cursor == Cursor("a.py", 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.branch = "x"  # type: ignore[misc]


# -- damage repaired on load -----------------------------------------------------------


def test_a_corrupt_state_is_moved_aside_reported_and_replaced_by_a_fresh_one(git):
    save_state(git, rich_state(git))
    path = state_path(git, SYNC_A)
    path.write_bytes(path.read_bytes()[:100])  # truncated
    loaded = load_state(git, SYNC_A, branch="main2dev/demo")
    assert not loaded.resumed
    assert loaded.state.files == ()
    assert loaded.moved_aside is not None
    assert loaded.moved_aside.name.startswith(f"{SYNC_A.name}.json.corrupt-")
    assert len(loaded.notes) == 1
    assert "is not valid JSON" in loaded.notes[0]
    assert loaded.moved_aside.name in loaded.notes[0]
    assert list_states(git) == []  # the corrupt copy is not taken for a state


def test_a_state_of_the_wrong_shape_is_moved_aside(git):
    path = state_path(git, SYNC_A)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"kind": "syncdesk-sync-state", "schema": 1, "sync": 3}))
    loaded = load_state(git, SYNC_A)
    assert loaded.moved_aside is not None
    assert "is not a valid sync state" in loaded.notes[0]


def test_a_state_from_a_newer_syncdesk_is_refused_and_kept(git):
    save_state(git, rich_state(git))
    path = state_path(git, SYNC_A)
    document = json.loads(path.read_text())
    document["schema"] = 2
    path.write_text(json.dumps(document))
    with pytest.raises(NewerFormatError, match="upgrade syncdesk"):
        load_state(git, SYNC_A)
    assert json.loads(path.read_text())["schema"] == 2


def test_missing_blobs_drop_only_their_choices_and_say_so(git, repo):
    lost = write_lines(git, ["this text will be lost\n"])
    state = choose_hunk(new_state(SYNC_A, at=AT), "a.py", HunkChoice(0, Action.EDITED, lost), at=AT)
    state = choose_hunk(state, "a.py", hunk(git, 1, "kept\n"), at=AT)
    state = set_status(state, "a.py", FileStatus.APPROVED, at=AT)
    state = choose_hunk(state, "b.py", hunk(git, 0, "other file\n"), at=AT)
    save_state(git, state)
    loose = repo.path / ".git" / "objects" / lost[:2] / lost[2:]
    loose.unlink()

    loaded = load_state(git, SYNC_A)

    assert loaded.missing_blobs == (lost,)
    a = loaded.state.decisions("a.py")
    assert [c.index for c in a.hunks] == [1]
    assert a.status is FileStatus.UNRESOLVED  # it can no longer be what was approved
    assert loaded.state.decisions("b.py") == state.decisions("b.py")
    assert any(c.blob == lost for d in state.file("a.py").undo for c in d.hunks)
    assert all(c.blob != lost for d in loaded.state.file("a.py").undo for c in d.hunks)
    assert loaded.notes == (
        "a.py: 1 saved resolution(s) lost (their text is missing from the repository); "
        "the file is unresolved again",
    )


def test_loading_removes_the_temporaries_of_killed_writers(git):
    save_state(git, rich_state(git))
    directory = states_dir(git)
    orphan = directory / f".{SYNC_A.name}.json{TEMP_MARK}999999999-0123456789abcdef"
    orphan.write_text("half a state")
    loaded = load_state(git, SYNC_A)
    assert loaded.orphans_removed == 1
    assert not orphan.exists()
    assert loaded.state == rich_state(git)


def test_a_state_file_holding_another_sync_is_moved_aside(git):
    save_state(git, rich_state(git))
    state_path(git, SYNC_A).rename(state_path(git, SYNC_B))
    loaded = load_state(git, SYNC_B)
    assert (loaded.resumed, loaded.state.sync, loaded.state.files) == (False, SYNC_B, ())
    assert f"holds the state of another sync, {SYNC_A.name}" in loaded.notes[0]
    assert loaded.moved_aside is not None


def test_a_save_that_cannot_be_written_is_a_clear_error(git):
    states_dir(git).parent.mkdir(parents=True)
    states_dir(git).write_text("a file where the directory should be")
    with pytest.raises(StorageError, match="could not"):
        save_state(git, rich_state(git))


# -- safe from git gc ----------------------------------------------------------------


def test_saved_resolutions_survive_git_gc_and_stray_ones_do_not(git, repo):
    state = rich_state(git)
    save_state(git, state)
    stray = write_lines(git, ["chosen, then never saved\n"])
    repo.git("gc", "--quiet", "--prune=now")
    loaded = load_state(git, SYNC_A)
    assert loaded.missing_blobs == ()
    assert loaded.state == state
    assert repo.git("cat-file", "-t", pin_ref(SYNC_A)) == "tree"
    assert stray not in repo.git("rev-list", "--objects", "--all")
    assert repo.git("log", "--all", "--oneline").splitlines() == [repo.git("log", "--oneline")]
    repo.git("fsck", "--no-dangling")


def test_a_fresh_ref_lock_makes_save_warn_but_the_state_is_saved(git, repo):
    lock = repo.path / ".git" / f"{pin_ref(SYNC_A)}.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")  # as if an update-ref of ours were running
    state = rich_state(git)
    warning = save_state(git, state)
    assert warning is not None
    assert "could not protect resolutions from git gc" in warning
    assert load_state(git, SYNC_A).state == state
    assert lock.exists()  # a fresh lock is never taken away


def test_a_stale_lock_on_our_own_ref_is_cleared(git, repo):
    lock = repo.path / ".git" / f"{pin_ref(SYNC_A)}.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    long_ago = time.time() - STALE_LOCK_SECONDS - 60
    os.utime(lock, (long_ago, long_ago))
    assert save_state(git, rich_state(git)) is None
    assert not lock.exists()
    assert repo.git("cat-file", "-t", pin_ref(SYNC_A)) == "tree"


def test_saving_and_loading_leave_a_dirty_checkout_untouched(git, repo):
    repo.write({"staged.txt": "staged\n"})
    (repo.path / "README.md").write_text("unstaged edit\n")
    (repo.path / "untracked.txt").write_text("untracked\n")
    before = (
        repo.git("status", "--porcelain", "--untracked-files=all"),
        (repo.path / ".git" / "index").read_bytes(),
        repo.rev("HEAD"),
        (repo.path / ".git" / "HEAD").read_text(),
    )
    save_state(git, rich_state(git))
    load_state(git, SYNC_A)
    after = (
        repo.git("status", "--porcelain", "--untracked-files=all"),
        (repo.path / ".git" / "index").read_bytes(),
        repo.rev("HEAD"),
        (repo.path / ".git" / "HEAD").read_text(),
    )
    assert after == before


# -- kill -9 ---------------------------------------------------------------------------


def test_kill_nine_while_saving_decisions_loses_nothing_acknowledged(git, repo):
    """Random SIGKILLs of a process saving decisions (reliability.md E7/E8, R1, R7).

    After each kill the state file parses and is the last acknowledged state or
    the one after it; the next writer resumes from it; no temporary file
    survives the cleanup; git stays consistent.
    """
    rng, seed = kill_random()
    directory = states_dir(git)
    for run in range(kill_runs(60)):
        killed = run_and_kill("state", repo.path, rng.uniform(0, 0.06))
        where = f"seed {seed}, run {run}, last ack {killed.last_ack}"
        path = state_path(git, SYNC)
        if path.exists():
            json.loads(path.read_bytes())  # whole, parseable
        clean_orphans(directory)
        assert not [p for p in directory.glob(f"*{TEMP_MARK}*")], where
        loaded = load_state(git, SYNC)
        assert loaded.moved_aside is None, where
        assert loaded.missing_blobs == (), where
        step = steps_in(loaded.state)
        assert step in (killed.last_ack, killed.last_ack + 1), where
        if loaded.resumed:
            assert loaded.state == state_at(step), where
        else:  # killed before its first save ever returned
            assert (killed.last_ack, loaded.state.files) == (0, ()), where
    repo.git("fsck", "--no-dangling")


@pytest.mark.parametrize("phase", sorted(PHASES))
def test_kill_nine_at_each_phase_of_a_save(git, repo, phase):
    """Deterministic kills in the windows random ones rarely hit (reliability.md §6)."""
    killed = run_until_death("state", repo.path, phase)
    assert (killed.ready, killed.last_ack) == (0, 2)  # two saves returned, the third was cut
    path = state_path(git, SYNC)
    json.loads(path.read_bytes())
    on_disk, temporaries = PHASES[phase]
    orphans = clean_orphans(states_dir(git))
    assert len(orphans) == temporaries
    loaded = load_state(git, SYNC)
    assert (loaded.moved_aside, loaded.missing_blobs, loaded.notes) == (None, (), ())
    expected = 3 if on_disk else 2
    assert loaded.state == state_at(expected)
    resumed = run_until_death("state", repo.path, phase)  # the next life resumes from it
    assert resumed.ready == expected
    repo.git("fsck", "--no-dangling")


_OTHER_PROCESS = """
import sys
from syncdesk.services.git.runner import Git
from syncdesk.services.decisions.store import load_state, save_state
from syncdesk.services.decisions.models import Action, HunkChoice, SyncKey, choose_hunk
from syncdesk.services.git.storage import write_lines

git = Git(sys.argv[1])
sync = SyncKey("a" * 40, "b" * 40)
state = load_state(git, sync).state
for path in sys.argv[2:]:
    choice = HunkChoice(0, Action.EDITED, write_lines(git, ["from the other window\\n"]))
    state = choose_hunk(state, path, choice)
print(save_state(git, state))
"""


def _other_syncdesk(git: Git, repo: GitRepo, *paths: str) -> str:
    """Another process deciding hunk 0 of ``paths`` in the same sync, and saving."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = subprocess.run(
        [sys.executable, "-c", _OTHER_PROCESS, str(repo.path), *paths],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
    )
    return result.stdout.strip()


def test_two_syncdesks_on_one_sync_keep_each_others_decisions(git, repo):
    mine = load_state(git, SYNC_A).state
    mine = choose_hunk(mine, "mine.py", hunk(git, 0, "from this window\n"))
    assert _other_syncdesk(git, repo, "theirs.py") == "None"
    assert save_state(git, mine) is None
    mine = choose_hunk(mine, "mine.py", hunk(git, 1, "and one more\n"))
    assert save_state(git, mine) is None  # the other's file survives a second save too
    saved = load_state(git, SYNC_A).state
    assert [f.path for f in saved.files] == ["mine.py", "theirs.py"]
    assert read_lines(git, chosen(saved, "theirs.py", 0).blob) == ["from the other window\n"]
    assert read_lines(git, chosen(saved, "mine.py", 1).blob) == ["and one more\n"]


def test_a_file_both_syncdesks_changed_keeps_the_later_decision_and_says_so(git, repo):
    mine = load_state(git, SYNC_A).state
    mine = choose_hunk(mine, "both.py", hunk(git, 0, "from this window\n"))
    _other_syncdesk(git, repo, "both.py", "theirs.py")
    warning = save_state(git, mine)
    assert warning is not None and "both.py" in warning and "theirs.py" not in warning
    saved = load_state(git, SYNC_A).state
    assert read_lines(git, chosen(saved, "both.py", 0).blob) == ["from this window\n"]
    assert saved.decisions("theirs.py").hunks


def test_a_state_nested_too_deeply_is_moved_aside_and_saving_works_again(git):
    # json.loads raises RecursionError, not a JSONDecodeError, on 100,000 "[".
    path = state_path(git, SYNC_A)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[" * 100_000)
    loaded = load_state(git, SYNC_A, branch="main2dev/demo")
    assert loaded.moved_aside is not None and "nested too deeply" in loaded.notes[0]
    save_state(git, rich_state(git))
    assert load_state(git, SYNC_A, branch="main2dev/demo").resumed
