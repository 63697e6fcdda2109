"""The repair writer: one repair commit on the merge, planned without moving a ref, verified."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from syncdesk.services.errors import (
    BranchMovedError,
    NothingToDoError,
    RefLockedError,
    ServiceError,
)
from syncdesk.services.git.refs import list_backups
from syncdesk.services.git.runner import Git
from syncdesk.services.write.message import BLOCK_HEADER
from syncdesk.services.write.models import FileChange
from syncdesk.services.write.repair import diff_text, plan_repair, plan_signoff, write_repair
from tests.syncrepo import ADA, BOB, build_sync_repo
from tests.writing import branch_at, fsck_ok, raw_git, refs, write_files

CORE = "pkg/core.py"
FIXED = b'"""Core."""\n\n\ndef answer() -> str:\n    return "fixed by hand"\n'


def plan(git: Git, changes: list[FileChange], branch: str = "sync"):
    return plan_repair(git, branch, changes, dev="dev", main="main")


def show(path, rev: str) -> bytes:
    return raw_git(path, "show", rev)


def test_a_first_repair_is_written_on_the_merge(tmp_path):
    sync = build_sync_repo(tmp_path / "r", repair=False)
    git = Git(sync.path)
    before = branch_at(sync.path)
    result = write_files(git, [FileChange(CORE, FIXED), FileChange("pkg/new.py", b"NEW = 1\n")])
    assert (result.old_head, result.anatomy_ok, result.tree_verified) == (before, True, True)
    assert result.problems == ()
    head = branch_at(sync.path)
    assert head == result.new_head
    assert raw_git(sync.path, "rev-parse", f"{head}^@").decode().split() == [sync.sync_merge]
    assert show(sync.path, f"{head}:{CORE}") == FIXED
    assert show(sync.path, f"{head}:pkg/new.py") == b"NEW = 1\n"
    message = raw_git(sync.path, "log", "-1", "--format=%B", head).decode()
    assert message.startswith("Repair sync: fixes after the sync merge\n\n")
    assert f"{BLOCK_HEADER}\n- {CORE} (updated)\n- pkg/new.py (added)\n" in message
    assert message.rstrip().endswith(f"Signed-off-by: {ADA[0]} <{ADA[1]}>")
    assert result.patch_id_same is None and "no previous repair" in result.patch_note


def test_an_existing_repair_is_replaced_keeping_its_author_message_and_change(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    old_repair = sync.repair
    assert old_repair is not None
    # The repair was written by Bob: amending keeps him as its author.
    sync.repo.git("commit", "--amend", "-q", "--no-edit", "--author", f"{BOB[0]} <{BOB[1]}>")
    old_repair = sync.repo.rev("HEAD")
    result = write_files(git, [FileChange(CORE, FIXED)])
    head = result.new_head
    assert result.anatomy_ok and result.tree_verified
    assert raw_git(sync.path, "rev-parse", f"{head}^@").decode().split() == [sync.sync_merge]
    old_date = raw_git(sync.path, "log", "-1", "--format=%ad", old_repair).decode().strip()
    who = raw_git(sync.path, "log", "-1", "--format=%an|%ae|%ad|%cn", head).decode().strip()
    assert who == f"{BOB[0]}|{BOB[1]}|{old_date}|{ADA[0]}"
    # The old repair's own fix is still there, with the new file.
    assert b"# fixed" in show(sync.path, f"{head}:pkg/feature.py")
    assert show(sync.path, f"{head}:{CORE}") == FIXED
    message = raw_git(sync.path, "log", "-1", "--format=%B", head).decode()
    assert message.startswith("Repair after the merge\n\n")
    assert result.patch_id_same is False
    assert result.patch_note == "patch differs from the previous repair in 1 file(s): pkg/core.py"


def test_a_second_write_merges_the_list_and_signs_off_once(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    write_files(git, [FileChange(CORE, FIXED)])
    result = write_files(
        git, [FileChange(CORE, FIXED + b"# again\n"), FileChange("README.md", None)]
    )
    message = raw_git(sync.path, "log", "-1", "--format=%B", result.new_head).decode()
    assert message.count(BLOCK_HEADER) == 1
    assert f"- {CORE} (updated)\n- README.md (deleted)\n" in message
    assert message.count("Signed-off-by: Ada Maintainer <ada@example.com>") == 1
    assert raw_git(sync.path, "ls-tree", "--name-only", result.new_head, "README.md") == b""
    # Two writes, two backups, each recording before and after.
    backups = list_backups(git, "sync")
    assert [(b.number, b.after) for b in backups][-1] == (2, result.new_head)
    assert backups[1].before == backups[0].after


def test_the_list_goes_above_the_trailers_of_the_kept_message(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    sync.repo.git(
        "commit", "--amend", "-q", "-m", "Fix imports\n\nBody text.\n\nCo-authored-by: Bob <b@x>"
    )
    git = Git(sync.path)
    result = write_files(git, [FileChange(CORE, FIXED)])
    message = raw_git(sync.path, "log", "-1", "--format=%B", result.new_head).decode()
    assert message == (
        f"Fix imports\n\nBody text.\n\n{BLOCK_HEADER}\n- {CORE} (updated)\n\n"
        "Co-authored-by: Bob <b@x>\nSigned-off-by: Ada Maintainer <ada@example.com>\n\n"
    )


def test_modes_are_kept_set_and_refused(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    write_files(git, [FileChange("tool.sh", b"#!/bin/sh\n", "100755")])
    result = write_files(
        git, [FileChange("tool.sh", b"#!/bin/sh\necho\n"), FileChange("ln", b"tool.sh", "120000")]
    )
    listing = raw_git(sync.path, "ls-tree", result.new_head, "tool.sh", "ln").decode()
    assert "100755 blob" in listing and "120000 blob" in listing
    with pytest.raises(ServiceError, match="mode 100600"):
        plan(git, [FileChange("x", b"", "100600")])


@pytest.mark.parametrize(
    "path", ["../outside", "/etc/passwd", ".git/config", "a//b", "pkg/./x", ""]
)
def test_paths_outside_the_repository_are_refused(tmp_path, path):
    sync = build_sync_repo(tmp_path / "r")
    with pytest.raises(ServiceError, match="not a path inside the repository"):
        plan(Git(sync.path), [FileChange(path, b"x")])


def test_a_write_that_changes_nothing_is_refused(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    same = raw_git(sync.path, "show", f"sync:{CORE}")
    with pytest.raises(NothingToDoError, match="nothing to write"):
        plan(git, [FileChange(CORE, same), FileChange("absent.py", None)])
    empty = build_sync_repo(tmp_path / "e", repair=False)
    with pytest.raises(NothingToDoError):
        plan(Git(empty.path), [])


def test_the_plan_moves_no_ref_and_shows_the_change(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    before = refs(sync.path)
    planned = plan(git, [FileChange(CORE, FIXED), FileChange(CORE, FIXED + b"# last wins\n")])
    assert refs(sync.path) == before
    assert (planned.old_head, planned.old_repair, planned.merge) == (
        sync.head,
        sync.head,
        sync.sync_merge,
    )
    assert planned.changes == (FileChange(CORE, FIXED + b"# last wins\n"),)
    assert "pkg/feature.py" in planned.diff_stat and CORE in planned.diff_stat  # the whole repair
    assert "pkg/feature.py" not in planned.diff_vs_old_repair  # only what changes
    assert '+    return "fixed by hand"' in planned.diff_vs_old_repair
    assert "+# last wins" in planned.diff_vs_old_repair
    assert raw_git(sync.path, "cat-file", "-t", planned.new_tree) == b"tree\n"


def test_a_long_patch_is_cut_in_the_preview(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    big = b"".join(b"line %d\n" % n for n in range(5000))
    planned = plan(git, [FileChange("big.txt", big)])
    cut = diff_text(git, planned.old_head, planned.new_tree, limit=2000)
    assert len(cut) < 2200 and cut.endswith(f"{planned.new_tree[:12]}]\n")
    assert "more bytes: git diff" in cut


def test_commits_on_top_are_folded_into_one_repair(tmp_path):
    sync = build_sync_repo(tmp_path / "r", extra_on_top=2)
    git = Git(sync.path)
    planned = plan(git, [FileChange(CORE, FIXED)])
    assert planned.replaces == tuple(sync.on_top)
    result = write_repair(git, planned)
    assert result.anatomy_ok, result.problems
    head = result.new_head
    assert b"X = 1" in show(sync.path, f"{head}:pkg/fix2.py")  # nothing of theirs is lost
    message = raw_git(sync.path, "log", "-1", "--format=%B", head).decode()
    assert f"- {sync.on_top[1][:12]} Another fix 1 (squashed)" in message


def test_a_merge_on_top_is_not_folded_into_the_repair(tmp_path):
    sync = build_sync_repo(tmp_path / "r", dev_merge_on_top=True)
    with pytest.raises(ServiceError, match="sits on top of the sync merge"):
        plan(Git(sync.path), [FileChange(CORE, FIXED)])


def test_a_branch_moved_since_it_was_read_is_not_overwritten(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    planned = plan(git, [FileChange(CORE, FIXED)])
    sync.repo.commit("someone else's fix", {"pkg/other.py": "OTHER = 1\n"})
    moved = sync.repo.rev("HEAD")
    before = refs(sync.path)
    with pytest.raises(BranchMovedError) as caught:
        write_repair(git, planned)
    assert str(caught.value) == (
        f"sync moved since it was read: it is at {moved[:12]}, "
        f"expected {sync.head[:12]}; nothing was changed"
    )
    assert refs(sync.path) == before


def test_the_compare_and_swap_itself_refuses_a_move_between_check_and_write(tmp_path, monkeypatch):
    """The branch moves after write_repair's own check: git's old-value check refuses."""
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    planned = plan(git, [FileChange(CORE, FIXED)])
    from syncdesk.services.git.commit import create_commit as real

    def racing(*args, **kwargs):
        commit = real(*args, **kwargs)
        sync.repo.git("update-ref", "refs/heads/sync", sync.sync_merge)  # another writer
        return commit

    monkeypatch.setattr("syncdesk.services.write.repair.create_commit", racing)
    before = refs(sync.path).replace(sync.head, sync.sync_merge)  # after the other writer
    with pytest.raises(BranchMovedError, match=f"it is at {sync.sync_merge[:12]}"):
        write_repair(git, planned)
    assert refs(sync.path) == before  # the other writer's move stands; no backup was made
    assert list_backups(git, "sync") == []


def test_a_locked_branch_is_refused_with_gits_reason(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    planned = plan(git, [FileChange(CORE, FIXED)])
    lock = sync.path / ".git" / "refs" / "heads" / "sync.lock"
    lock.write_text("held by another git\n")
    before = refs(sync.path)
    with pytest.raises(RefLockedError) as caught:
        write_repair(git, planned)
    message = str(caught.value)
    assert "\n" not in message and "sync.lock': File exists" in message
    assert message.endswith("nothing was changed")
    assert refs(sync.path) == before and lock.read_text() == "held by another git\n"
    assert fsck_ok(sync.path)


def test_the_users_index_lock_does_not_matter(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    lock = sync.path / ".git" / "index.lock"
    lock.write_text("")
    result = write_files(Git(sync.path), [FileChange(CORE, FIXED)])
    assert result.tree_verified and lock.exists()


def ssh_key(tmp_path: Path) -> Path:
    """A passphrase-less ed25519 key made for the test, and an allowed-signers file for it."""
    key = tmp_path / "key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ada", "-f", str(key)], check=True
    )
    public = (tmp_path / "key.pub").read_text().split()
    (tmp_path / "allowed").write_text(f"{ADA[1]} {public[0]} {public[1]}\n")
    return key


def test_a_repair_is_signed_with_an_ssh_key_when_git_says_so(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    key = ssh_key(tmp_path)
    for name, value in (
        ("gpg.format", "ssh"),
        ("user.signingKey", str(key)),
        ("commit.gpgSign", "true"),
        ("gpg.ssh.allowedSignersFile", str(tmp_path / "allowed")),
    ):
        sync.repo.git("config", name, value)
    git = Git(sync.path)
    planned = plan(git, [FileChange(CORE, FIXED)])
    assert planned.sign
    result = write_repair(git, planned)
    assert b"\ngpgsig -----BEGIN SSH SIGNATURE-----" in raw_git(
        sync.path, "cat-file", "commit", result.new_head
    )
    verified = subprocess.run(
        ["git", "verify-commit", result.new_head], cwd=sync.path, capture_output=True, text=True
    )
    assert verified.returncode == 0, verified.stderr
    assert 'Good "git" signature for ada@example.com' in verified.stderr


def test_settings_from_the_environment_survive_our_own(tmp_path, monkeypatch):
    """syncdesk adds core.fsync through GIT_CONFIG_COUNT: a user's entries there are kept."""
    sync = build_sync_repo(tmp_path / "r")
    key = ssh_key(tmp_path)
    sync.repo.git("config", "gpg.format", "ssh")
    sync.repo.git("config", "commit.gpgSign", "true")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.signingKey")  # only here, not in a file
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(key))
    result = write_files(Git(sync.path), [FileChange(CORE, FIXED)])
    assert b"gpgsig" in raw_git(sync.path, "cat-file", "commit", result.new_head)


def test_an_unsigned_setup_writes_no_signature(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    sync.repo.git("config", "user.signingKey", "/nonexistent")  # a key alone does not say sign
    result = write_files(Git(sync.path), [FileChange(CORE, FIXED)])
    assert b"gpgsig" not in raw_git(sync.path, "cat-file", "commit", result.new_head)


def test_a_signing_failure_changes_nothing(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    sync.repo.git("config", "gpg.format", "ssh")
    sync.repo.git("config", "user.signingKey", str(tmp_path / "no-such-key"))
    sync.repo.git("config", "commit.gpgSign", "true")
    before = refs(sync.path)
    with pytest.raises(ServiceError, match="could not sign the commit"):
        write_files(Git(sync.path), [FileChange(CORE, FIXED)])
    assert refs(sync.path) == before


def test_no_identity_is_a_clear_error(tmp_path, monkeypatch):
    sync = build_sync_repo(tmp_path / "r")
    for name in (
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
    ):
        monkeypatch.delenv(name)
    monkeypatch.setenv("EMAIL", "")
    sync.repo.git("config", "user.useConfigOnly", "true")
    with pytest.raises(ServiceError, match=r"set user\.name and user\.email"):
        plan(Git(sync.path), [FileChange(CORE, FIXED)])


def test_the_reflog_says_who_moved_the_branch(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    result = write_files(Git(sync.path), [FileChange(CORE, FIXED)])
    reflog = raw_git(sync.path, "reflog", "-1", "--format=%gs", "sync").decode()
    assert reflog.strip() == f"syncdesk: repair sync: {CORE}"
    backup_log = sync.path / ".git" / "logs" / result.backup_ref.replace("/", os.sep) / "before"
    assert backup_log.exists()  # --create-reflog: even the backups have one


def test_odd_paths_are_written_byte_for_byte(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    odd = ["glob [*] name?.py", "caf\udce9.txt", "new\nline.txt", "-starts-with-dash"]
    changes = [FileChange(path, path.encode("utf-8", "surrogateescape")) for path in odd]
    head = write_files(git, changes).new_head
    listed = raw_git(sync.path, "ls-tree", "-r", "-z", "--name-only", head).split(b"\0")
    for path in odd:
        raw = path.encode("utf-8", "surrogateescape")
        assert raw in listed
        assert raw_git(sync.path, "cat-file", "blob", f"{head}:{path}") == raw
    message = raw_git(sync.path, "log", "-1", "--format=%B", head).decode()
    assert "- new^Jline.txt (added)" in message and "- caf\ufffd.txt (added)" in message


def test_an_unsigned_repair_is_re_signed_with_the_same_tree(tmp_path):
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    old = branch_at(sync.path)
    assert "Signed-off-by" not in raw_git(sync.path, "log", "-1", "--format=%B", old).decode()
    signed = plan_signoff(git, "sync", dev="dev", main="main")
    assert signed.changes == () and signed.old_repair == old
    result = write_repair(git, signed)
    new = result.new_head
    assert result.anatomy_ok and result.tree_verified and result.patch_id_same is True
    assert raw_git(sync.path, "rev-parse", f"{new}^{{tree}}") == raw_git(
        sync.path, "rev-parse", f"{old}^{{tree}}"
    )
    message = raw_git(sync.path, "log", "-1", "--format=%B", new).decode()
    assert message.rstrip().endswith(f"Signed-off-by: {ADA[0]} <{ADA[1]}>")
    with pytest.raises(NothingToDoError, match="already signed off"):
        plan_signoff(git, "sync", dev="dev", main="main")


def test_without_a_repair_there_is_nothing_to_re_sign(tmp_path):
    sync = build_sync_repo(tmp_path / "r", repair=False)
    with pytest.raises(ServiceError, match="no repair commit"):
        plan_signoff(Git(sync.path), "sync", dev="dev", main="main")
