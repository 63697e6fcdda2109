"""Push with a lease to a local bare "remote": success, and each refusal classified in one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from syncdesk.services.errors import BranchMovedError, ServiceError
from syncdesk.services.git.runner import Git
from syncdesk.services.write.models import FileChange
from syncdesk.services.write.push import classify, lease_for, push_with_lease
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.writing import raw_git, write_files

FIX = FileChange("pkg/core.py", b"fixed\n")


def remote_at(remote: Path, branch: str = "sync") -> str:
    return raw_git(remote, "rev-parse", f"refs/heads/{branch}").decode().strip()


def published(tmp_path: Path) -> tuple[SyncRepo, Path]:
    """A sync repo whose branch is pushed to a bare remote, and that remote."""
    sync = build_sync_repo(tmp_path / "r")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    sync.git("remote", "add", "origin", str(remote))
    sync.git("push", "-q", "origin", "sync")
    return sync, remote


def someone_else_pushes(tmp_path: Path, remote: Path) -> str:
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", "--branch", "sync", str(remote), str(other)], check=True)
    (other / "theirs.txt").write_text("their work\n")
    for args in (["add", "theirs.txt"], ["commit", "-q", "-m", "their work"], ["push", "-q"]):
        subprocess.run(["git", *args], cwd=other, check=True)
    return remote_at(remote)


def test_a_rewritten_branch_is_pushed_with_a_lease(tmp_path):
    sync, remote = published(tmp_path)
    git = Git(sync.path)
    written = write_files(git, [FIX])
    expected = lease_for(git, "origin", "sync")
    assert expected == sync.head  # the tip syncdesk replaced, known from its backup
    result = push_with_lease(git, "origin", "sync", expected)
    assert (result.ok, result.reason) == (True, "pushed")
    assert result.message == (
        f"pushed origin/sync: {sync.head[:7]}...{written.new_head[:7]} (forced update)"
    )
    assert remote_at(remote) == written.new_head
    again = push_with_lease(git, "origin", "sync", lease_for(git, "origin", "sync"))
    assert (again.ok, again.reason) == (True, "up-to-date")


def test_a_push_since_the_read_is_never_clobbered(tmp_path):
    sync, remote = published(tmp_path)
    git = Git(sync.path)
    write_files(git, [FIX])
    expected = lease_for(git, "origin", "sync")
    theirs = someone_else_pushes(tmp_path, remote)
    result = push_with_lease(git, "origin", "sync", expected)
    assert (result.ok, result.reason) == (False, "stale-lease")
    assert result.message == (
        f"push refused: origin/sync is no longer at {sync.head[:12]}, as it was when read "
        "(someone pushed since); nothing was pushed"
    )
    assert remote_at(remote) == theirs


def test_a_background_fetch_does_not_make_a_lease(tmp_path):
    sync, remote = published(tmp_path)
    git = Git(sync.path)
    write_files(git, [FIX])
    theirs = someone_else_pushes(tmp_path, remote)
    sync.git("fetch", "-q", "origin")  # an editor's autofetch: origin/sync now names theirs
    with pytest.raises(BranchMovedError) as caught:
        lease_for(git, "origin", "sync")
    assert f"origin/sync is at {theirs[:12]}, a commit sync never held" in str(caught.value)
    assert remote_at(remote) == theirs


def test_a_new_branch_is_pushed_only_if_the_remote_has_none(tmp_path):
    sync, remote = published(tmp_path)
    git = Git(sync.path)
    sync.repo.branch("sync2", sync.head)
    assert lease_for(git, "origin", "sync2") == ""
    assert push_with_lease(git, "origin", "sync2", "").ok
    assert remote_at(remote, "sync2") == sync.head
    sync.repo.branch("sync3", sync.head)
    subprocess.run(["git", "update-ref", "refs/heads/sync3", sync.root], cwd=remote, check=True)
    result = push_with_lease(git, "origin", "sync3", "")
    assert result.reason == "stale-lease" and "is no longer absent" in result.message
    assert remote_at(remote, "sync3") == sync.root


def test_an_abbreviated_lease_is_refused(tmp_path):
    sync, _ = published(tmp_path)
    with pytest.raises(ServiceError, match="a lease needs a full commit id"):
        push_with_lease(Git(sync.path), "origin", "sync", sync.head[:12])


def test_the_users_pre_push_hook_runs_and_can_stop_the_push(tmp_path):
    sync, remote = published(tmp_path)
    git = Git(sync.path)
    write_files(git, [FIX])
    hook = sync.path / ".git" / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\necho 'audit: 3 dev lines lost' >&2\nexit 1\n")
    hook.chmod(0o755)
    result = push_with_lease(git, "origin", "sync", lease_for(git, "origin", "sync"))
    assert (result.ok, result.reason) == (False, "hook")
    assert "pre-push hook" in result.message
    assert remote_at(remote) == sync.head


def test_a_remote_that_declines_is_reported(tmp_path):
    sync, remote = published(tmp_path)
    git = Git(sync.path)
    write_files(git, [FIX])
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nexit 1\n")
    hook.chmod(0o755)
    result = push_with_lease(git, "origin", "sync", lease_for(git, "origin", "sync"))
    assert (result.ok, result.reason) == (False, "rejected")
    assert result.message == "push rejected by origin: pre-receive hook declined"
    assert remote_at(remote) == sync.head


def test_an_unreachable_remote_is_one_line(tmp_path):
    sync, _ = published(tmp_path)
    sync.git("remote", "set-url", "origin", str(tmp_path / "gone.git"))
    result = push_with_lease(Git(sync.path), "origin", "sync", sync.head)
    assert (result.ok, result.reason) == (False, "failed")
    assert result.message.startswith("push failed: fatal: ") and "\n" not in result.message


@pytest.mark.parametrize(
    "stderr",
    [
        "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
        "remote: Invalid username or password.\nfatal: Authentication failed for 'https://x/'",
        "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote",
    ],
)
def test_missing_credentials_are_named(stderr):
    result = classify(128, "", stderr, "origin", "sync", "a" * 40)
    assert result.reason == "auth" and "set up a credential helper" in result.message


def test_a_configured_hooks_directory_is_the_one_that_runs(tmp_path):
    sync, _ = published(tmp_path)
    git = Git(sync.path)
    write_files(git, [FIX])
    hooks = sync.path / "myhooks"
    hooks.mkdir()
    (hooks / "pre-push").write_text('#!/bin/sh\necho ran > "$GIT_DIR/../pre-push-ran"\n')
    (hooks / "pre-push").chmod(0o755)
    sync.git("config", "core.hooksPath", "myhooks")  # relative: to the top of the work tree
    result = push_with_lease(git, "origin", "sync", lease_for(git, "origin", "sync"))
    assert result.ok, result.message
    assert (sync.path / "pre-push-ran").read_text() == "ran\n"


def test_the_confirmed_head_is_pushed_and_a_branch_moved_since_is_refused(tmp_path):
    sync, remote = published(tmp_path)
    git = Git(sync.path)
    confirmed = write_files(git, [FIX]).new_head
    expected = lease_for(git, "origin", "sync")
    # Another write lands between the question and the push: it is not pushed.
    later = write_files(git, [FileChange("pkg/later.py", b"LATER = 1\n")]).new_head
    with pytest.raises(BranchMovedError, match="nothing was pushed"):
        push_with_lease(git, "origin", "sync", expected, head=confirmed)
    assert remote_at(remote) == sync.head
    result = push_with_lease(git, "origin", "sync", expected, head=later)
    assert result.ok and remote_at(remote) == later
