"""Nothing lost: every write path leaves the user's work tree, index and HEAD byte-identical."""

from __future__ import annotations

import subprocess

from syncdesk.services.git.refs import undo_last
from syncdesk.services.git.runner import Git
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


def test_a_checked_out_sync_branch_moves_and_its_files_stay_as_they_were(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    make_dirty(sync, "sync")
    before = snapshot(sync.path)
    git = Git(sync.path)
    written = write_repair(git, plan_repair(git, "sync", [FIX], dev="dev", main="main"))
    after = snapshot(sync.path)
    # HEAD still names the branch; the files and the index are exactly as they were.
    assert (after.head_file, after.index, after.files) == (
        before.head_file,
        before.index,
        before.files,
    )
    assert after.head.decode().strip() == written.new_head
    assert written.checked_out_in == (str(sync.path),)
    command = f"git read-tree -m -u {sync.head[:12]} HEAD"
    assert command in written.note
    # The command the note gives brings the checkout up to date and keeps local changes.
    subprocess.run(command.split(), cwd=sync.path, check=True)
    assert (sync.path / "pkg" / "core.py").read_bytes() == b"fixed\n"
    assert (sync.path / "pkg" / "__init__.py").read_text() == "# unstaged only\n"
    assert (sync.path / "notes.txt").exists()
    staged = raw_git(sync.path, "diff", "--cached", "--name-only").decode().split()
    assert staged == ["README.md"]
