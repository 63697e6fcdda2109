"""One branch resolver for every command: every name of the sync names the same commit.

A maintainer who fetched the sync but never checked it out has only
``origin/<branch>``; they may also give ``<branch>``, ``refs/remotes/...``,
``refs/heads/...``, ``HEAD`` or the SHA. The desk, ``report`` and the writers
must all read the same commit, and a write creates the local branch, saying so.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest

from syncdesk.services.git.branches import name_branch
from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import open_sync, writable_branch
from syncdesk.tui.cli.run import main
from tests.gitrepo import GitRepo
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.writing import approve_whole_file, raw_git

CORE = "pkg/core.py"


def fetched_only(sync: SyncRepo, path: Path) -> SyncRepo:
    """A clone of ``sync``'s repository whose only copy of the sync is ``origin/sync``."""
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(sync.path), str(path)], check=True)
    local = raw_git(path, "for-each-ref", "--format=%(refname)", "refs/heads/").decode().split()
    for ref in local:  # no local branch at all: dev, main and the sync only on the remote
        subprocess.run(["git", "-C", str(path), "update-ref", "-d", ref], check=True)
    subprocess.run(["git", "-C", str(path), "checkout", "-q", "--detach", sync.root], check=True)
    return dataclasses.replace(sync, repo=GitRepo(path))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], list[str]]:
    code = main(["--slice-size", "5", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.mark.parametrize(
    "name", ["sync", "origin/sync", "refs/remotes/origin/sync", "remotes/origin/sync"]
)
def test_every_name_of_a_fetched_sync_names_the_same_commit_and_branch(
    tmp_path: Path, name: str
) -> None:
    sync = build_sync_repo(tmp_path / "r")
    clone = fetched_only(sync, tmp_path / "clone")
    session = open_sync(SyncOptions(repo=clone.path, head=name, slice_size=5))
    assert session.refs.head == sync.head
    assert session.refs.branch == "sync"  # the title and the saved decisions name the branch
    assert writable_branch(session) == "sync"


def test_a_local_branch_by_any_name_and_its_sha(tmp_path: Path) -> None:
    sync = build_sync_repo(tmp_path / "r")
    git = Git(sync.path)
    for name in ("sync", "refs/heads/sync"):
        named = name_branch(git, name, "origin")
        assert (named.sha, named.branch, named.local, named.tracking) == (
            sync.head,
            "sync",
            True,
            None,
        )
    by_sha = name_branch(git, sync.head, "origin")
    assert (by_sha.sha, by_sha.branch) == (sync.head, None)
    sync.repo.checkout("sync")
    assert name_branch(git, None, "origin").branch == "sync"


def test_report_and_repair_agree_on_a_remote_only_sync_and_the_write_creates_the_branch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sync = build_sync_repo(tmp_path / "r")
    clone = fetched_only(sync, tmp_path / "clone")
    content = approve_whole_file(clone, CORE)
    repo = str(clone.path)
    code, out, _ = run(capsys, "--repo", repo, "report", "--head", "sync", "--format", "json")
    assert code == 0 and json.loads("\n".join(out))["refs"]["head"]["sha"] == sync.head
    code, out, err = run(capsys, "--repo", repo, "repair", "--preview", "--head", "sync")
    assert code == 0, err
    assert out[0].startswith(f"Repair of sync at {sync.head[:12]}")
    assert raw_git(clone.path, "for-each-ref", "refs/heads/") == b""  # a preview creates nothing

    code, out, err = run(capsys, "--repo", repo, "repair", "--write", "--head", "origin/sync")
    assert code == 0, err
    head = raw_git(clone.path, "rev-parse", "refs/heads/sync").decode().strip()
    assert out[-1] == head != sync.head
    assert raw_git(clone.path, "show", f"{head}:{CORE}") == content
    assert any("created the local branch sync (it was only refs/remotes/origin/sync)" in line
               for line in err)  # fmt: skip
    # The remote-tracking ref is untouched; undo puts the new local branch where it was.
    assert raw_git(clone.path, "rev-parse", "origin/sync").decode().strip() == sync.head
    code, out, err = run(capsys, "--repo", repo, "undo", "--head", "sync")
    assert code == 0, err
    assert raw_git(clone.path, "rev-parse", "refs/heads/sync").decode().strip() == sync.head


def test_a_local_branch_behind_its_remote_refuses_with_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sync = build_sync_repo(tmp_path / "r")
    clone = fetched_only(sync, tmp_path / "clone")
    clone.git("branch", "sync", "origin/sync~1")
    approve_whole_file(clone, CORE)
    code, out, err = run(capsys, "--repo", str(clone.path), "repair", "--write", "--head",
                         "origin/sync")  # fmt: skip
    assert (code, out) == (1, [])
    assert "your local branch sync is at" in err[0]
    assert "git switch sync && git merge --ff-only origin/sync" in err[0]


def test_a_name_that_is_no_branch_cannot_be_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sync = build_sync_repo(tmp_path / "r")
    code, out, err = run(capsys, "--repo", str(sync.path), "repair", "--write", "--head",
                         sync.head)  # fmt: skip
    assert (code, out) == (1, [])
    assert err == [
        f"syncdesk: {sync.head} is no branch: name the sync branch (syncdesk --head BRANCH)"
    ]
