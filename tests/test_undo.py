"""Backups and undo: every move is backed up in its own transaction; undo restores, undoably."""

from __future__ import annotations

import pytest

from syncdesk.services.errors import BranchMovedError, NothingToDoError, RefLockedError
from syncdesk.services.git.atomic import clean_orphans
from syncdesk.services.git.refs import list_backups, move_branch, undo_last
from syncdesk.services.git.runner import Git
from syncdesk.services.git.trees import scratch_dir
from syncdesk.services.write.models import FileChange
from tests.syncrepo import build_sync_repo
from tests.writing import branch_at, fsck_ok, refs, write_files

FIX = FileChange("pkg/core.py", b"fixed\n")


def test_undo_restores_the_last_backup_and_can_itself_be_undone(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    written = write_files(git, [FIX])
    undone = undo_last(git, "sync")
    assert (undone.old_head, undone.new_head) == (written.new_head, sync.head)
    assert branch_at(sync.path) == sync.head
    assert undone.restored_from == written.backup_ref
    redone = undo_last(git, "sync")  # undo the undo
    assert (redone.old_head, redone.new_head) == (sync.head, written.new_head)
    assert branch_at(sync.path) == written.new_head
    assert [b.number for b in list_backups(git, "sync")] == [1, 2, 3]
    assert fsck_ok(sync.path)


def test_every_write_is_undone_exactly_sixty_times_over(tmp_path):
    """R5: after each of 20 writes, one undo gives back the prior head and tree (and redo)."""
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    for step in range(20):
        before = branch_at(sync.path)
        tree = sync.git("rev-parse", f"{before}^{{tree}}")
        written = write_files(git, [FileChange("pkg/step.py", b"STEP = %d\n" % step)])
        undone = undo_last(git, "sync")
        assert (undone.new_head, branch_at(sync.path)) == (before, before)
        assert sync.git("rev-parse", "sync^{tree}") == tree
        undo_last(git, "sync")  # and back, to write the next step on top
        assert branch_at(sync.path) == written.new_head


def test_undo_refuses_to_discard_a_commit_made_after_the_write(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    written = write_files(git, [FIX])
    sync.repo.checkout("sync")
    sync.repo.git("reset", "-q", "--hard", written.new_head)
    extra = sync.repo.commit("a colleague's commit", {"pkg/theirs.py": "T = 1\n"})
    before = refs(sync.path)
    with pytest.raises(BranchMovedError) as caught:
        undo_last(git, "sync")
    assert str(caught.value) == (
        f"sync moved since syncdesk wrote it: it is at {extra[:12]}, syncdesk left it at "
        f"{written.new_head[:12]}; undo would discard that, so nothing was changed"
    )
    assert refs(sync.path) == before


def test_nothing_to_undo_without_a_backup(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    with pytest.raises(NothingToDoError, match="syncdesk has no backup of sync"):
        undo_last(Git(sync.path), "sync")


def test_a_locked_branch_is_not_undone(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    write_files(git, [FIX])
    (sync.path / ".git" / "refs" / "heads" / "sync.lock").write_text("")
    before = refs(sync.path)
    with pytest.raises(RefLockedError, match="File exists"):
        undo_last(git, "sync")
    assert refs(sync.path) == before


def test_backups_of_one_branch_are_not_another_branchs(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    sync.repo.branch("team", sync.head)
    move_branch(git, "team", sync.sync_merge, sync.head, "test")
    sync.repo.git("branch", "-D", "team")
    sync.repo.branch("team/one", sync.head)  # a name under the old one's: its backups differ
    move_branch(git, "refs/heads/team/one", sync.root, sync.head, "test")
    assert [b.after for b in list_backups(git, "team")] == [sync.sync_merge]
    assert [b.after for b in list_backups(git, "team/one")] == [sync.root]
    assert list_backups(git, "sync") == []


def test_a_packed_branch_is_moved_and_backed_up(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    sync.git("pack-refs", "--all")
    git = Git(sync.path)
    written = write_files(git, [FIX])
    assert branch_at(sync.path) == written.new_head
    assert undo_last(git, "sync").new_head == sync.head


def test_orphan_temporary_indexes_and_their_locks_are_cleaned(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    write_files(git, [FIX])
    directory = scratch_dir(git)
    dead = directory / ".index.syncdesk-tmp-999999999-0123456789abcdef"
    for leftover in (dead, dead.with_name(dead.name + ".lock")):
        leftover.write_bytes(b"DIRC")
    alien = directory / "index.lock"  # not ours: never touched
    alien.write_text("")
    write_files(git, [FileChange("pkg/core.py", b"again\n")])  # the next start cleans
    assert sorted(p.name for p in directory.iterdir()) == ["index.lock"]
    assert clean_orphans(directory) == []


def test_undo_refuses_when_the_branch_changed_since_it_was_confirmed(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    first = write_files(git, [FileChange("pkg/one.py", b"ONE = 1\n")])
    confirmed_backup = list_backups(git, "sync")[-1].ref
    second = write_files(git, [FileChange("pkg/two.py", b"TWO = 2\n")])
    with pytest.raises(BranchMovedError, match="changed since you confirmed"):
        undo_last(git, "sync", expected_head=first.new_head, expected_backup=confirmed_backup)
    assert branch_at(sync.path) == second.new_head  # nothing changed
    undone = undo_last(git, "sync", expected_head=second.new_head)
    assert undone.new_head == first.new_head
