"""Nothing lost: a write never touches a work tree but the branch's own clean checkout.

A checkout of another branch stays byte-identical through every write; a checkout
of the written branch is refused while it has local changes, and follows the
write with git's two-way merge when clean (services/write/checkout.py).
"""

from __future__ import annotations

import subprocess

import pytest

from syncdesk.services.git.refs import undo_last
from syncdesk.services.git.runner import Git
from syncdesk.services.write.checkout import LocalChangesError
from syncdesk.services.write.models import FileChange
from syncdesk.services.write.push import lease_for, push_with_lease
from syncdesk.services.write.rebuild import rebuild_onto
from syncdesk.services.write.repair import plan_repair, write_repair
from tests.syncrepo import build_sync_repo
from tests.writing import branch_at, fsck_ok, make_dirty, raw_git, snapshot

FIX = FileChange("pkg/core.py", b"fixed\n")


def test_a_dirty_checkout_is_untouched_by_every_operation(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_moves="clean")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sync.git("remote", "add", "origin", str(remote))
    sync.git("push", "-q", "origin", "sync")
    make_dirty(sync, "main")
    before = snapshot(sync.path)
    git = Git(sync.path)

    plan = plan_repair(git, "sync", [FIX], dev="dev", main="main")
    assert snapshot(sync.path) == before, "preview"
    written = write_repair(git, plan)
    assert snapshot(sync.path) == before, "write"
    assert written.checked_out_in == () and written.note == ""
    undo_last(git, "sync")
    assert snapshot(sync.path) == before, "undo"
    undo_last(git, "sync")
    assert snapshot(sync.path) == before, "undo of the undo"
    rebuilt = rebuild_onto(git, "sync", "dev", dev="dev", main="main")
    assert snapshot(sync.path) == before, "rebuild"
    pushed = push_with_lease(git, "origin", "sync", lease_for(git, "origin", "sync"))
    assert pushed.ok, pushed.message
    assert snapshot(sync.path) == before, "push"
    assert branch_at(sync.path) == rebuilt.new_head
    assert fsck_ok(sync.path)


def test_a_checked_out_branch_with_local_changes_refuses_before_writing(tmp_path):
    # A write would leave the checkout's index on the old commit: a staged
    # reversal of the repair that a hurried `git commit -a` would commit.
    sync = build_sync_repo(tmp_path / "r")
    make_dirty(sync, "sync")
    before = snapshot(sync.path)
    git = Git(sync.path)
    plan = plan_repair(git, "sync", [FIX], dev="dev", main="main")  # a tree, no commit
    objects = raw_git(sync.path, "count-objects", "-v")
    with pytest.raises(LocalChangesError, match=r"checked out in .* with local changes"):
        write_repair(git, plan)
    with pytest.raises(LocalChangesError):
        rebuild_onto(git, "sync", "dev", dev="dev", main="main")
    assert snapshot(sync.path) == before
    assert branch_at(sync.path) == sync.head
    assert raw_git(sync.path, "count-objects", "-v") == objects  # not even a commit object
    assert raw_git(sync.path, "for-each-ref", "refs/syncdesk/") == b""  # nor a backup


def test_a_clean_checked_out_branch_follows_the_write(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    sync.repo.checkout("sync")
    (sync.path / "notes.txt").write_text("untracked, kept\n")  # untracked is not a change
    git = Git(sync.path)
    written = write_repair(git, plan_repair(git, "sync", [FIX], dev="dev", main="main"))
    assert written.checked_out_in == (str(sync.path),) and written.note == ""
    assert raw_git(sync.path, "rev-parse", "HEAD").decode().strip() == written.new_head
    assert raw_git(sync.path, "status", "--porcelain") == b"?? notes.txt\n"
    assert (sync.path / "pkg" / "core.py").read_bytes() == b"fixed\n"


def test_a_checkout_git_refuses_to_update_is_named_with_the_command(tmp_path):
    # An untracked file where the repair adds one: git's two-way merge refuses to
    # overwrite it, the branch has moved (the compare-and-swap came first), and the
    # note gives the command for once the way is clear.
    sync = build_sync_repo(tmp_path / "r")
    sync.repo.checkout("sync")
    (sync.path / "new.py").write_text("mine, untracked\n")
    git = Git(sync.path)
    plan = plan_repair(git, "sync", [FileChange("new.py", b"theirs\n")], dev="dev", main="main")
    written = write_repair(git, plan)
    assert branch_at(sync.path) == written.new_head
    assert f"git read-tree -m -u {sync.head[:12]} HEAD" in written.note
    assert (sync.path / "new.py").read_text() == "mine, untracked\n"


def test_a_checkout_a_killed_write_left_behind_is_brought_up_not_refused(tmp_path):
    # Killed between the branch's move and the checkout's update: the files are
    # exactly the backup's "before". That is syncdesk's own leftover, not the
    # user's change: the next write brings the checkout up and goes on.
    sync = build_sync_repo(tmp_path / "r")
    sync.repo.checkout("sync")
    git = Git(sync.path)
    first = write_repair(git, plan_repair(git, "sync", [FIX], dev="dev", main="main"))
    subprocess.run(["git", "read-tree", "-m", "-u", first.new_head, sync.head],
                   cwd=sync.path, check=True)  # fmt: skip
    assert raw_git(sync.path, "status", "--porcelain") != b""  # reads as a reversal
    second = FileChange("pkg/core.py", b"fixed again\n")
    written = write_repair(git, plan_repair(git, "sync", [second], dev="dev", main="main"))
    assert raw_git(sync.path, "status", "--porcelain") == b""
    assert (sync.path / "pkg" / "core.py").read_bytes() == b"fixed again\n"
    assert written.note == ""
