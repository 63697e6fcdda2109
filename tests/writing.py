"""Helpers for the writer's tests: snapshots of everything a write must leave alone."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from syncdesk.services.decisions import models as decisions
from syncdesk.services.decisions.store import load_state, save_state
from syncdesk.services.git.runner import Git
from syncdesk.services.write.models import FileChange, WriteResult
from syncdesk.services.write.repair import plan_repair, write_repair
from tests.syncrepo import SyncRepo


def raw_git(path: Path, *args: str) -> bytes:
    """Run git in ``path`` without taking any optional lock (``status`` would refresh the index)."""
    return subprocess.run(
        ["git", "--no-optional-locks", *args], cwd=path, capture_output=True, check=True
    ).stdout


def refs(path: Path) -> str:
    """Every ref and where it points."""
    return raw_git(path, "for-each-ref", "--format=%(refname) %(objectname)").decode()


def branch_at(path: Path, branch: str = "sync") -> str:
    return raw_git(path, "rev-parse", f"refs/heads/{branch}").decode().strip()


@dataclass(frozen=True)
class CheckoutSnapshot:
    """The user's work tree, index and HEAD, byte for byte."""

    head_file: bytes
    head: bytes
    index: bytes
    status: bytes
    unstaged: bytes
    staged: bytes
    files: dict[str, bytes]


def snapshot(path: Path) -> CheckoutSnapshot:
    """Read the checkout (the index file first: nothing below rewrites it)."""
    git_dir = path / ".git"
    index = (git_dir / "index").read_bytes()
    files = {
        str(item.relative_to(path)): item.read_bytes()
        for item in sorted(path.rglob("*"))
        if item.is_file() and ".git" not in item.relative_to(path).parts
    }
    return CheckoutSnapshot(
        head_file=(git_dir / "HEAD").read_bytes(),
        head=raw_git(path, "rev-parse", "HEAD"),
        index=index,
        status=raw_git(path, "status", "--porcelain=v2", "-z", "--untracked-files=all"),
        unstaged=raw_git(path, "diff", "--binary"),
        staged=raw_git(path, "diff", "--cached", "--binary"),
        files=files,
    )


def make_dirty(sync: SyncRepo, branch: str = "main") -> None:
    """Check out ``branch`` and leave staged, unstaged and untracked changes in it."""
    repo = sync.repo
    repo.checkout(branch)
    (sync.path / "README.md").write_text("# demo\n\nstaged edit\n")
    repo.git("add", "README.md")
    (sync.path / "README.md").write_text("# demo\n\nstaged edit\n\nthen unstaged\n")
    (sync.path / "pkg" / "__init__.py").write_text("# unstaged only\n")
    (sync.path / "notes.txt").write_text("untracked, never added\n")
    (sync.path / "pkg" / "scratch.py").write_bytes(b"\x00\x01 untracked binary\n")


def write_files(git: Git, changes: list[FileChange], branch: str = "sync") -> WriteResult:
    """Plan and write a repair on a ``build_sync_repo`` branch."""
    plan = plan_repair(git, branch, changes, dev="dev", main="main")
    return write_repair(git, plan)


def fsck_ok(path: Path) -> bool:
    """``git fsck`` finds no error (dangling objects are not errors)."""
    result = subprocess.run(
        ["git", "fsck", "--no-dangling", "--no-progress"], cwd=path, capture_output=True
    )
    return result.returncode == 0 and not result.stderr.strip()


def approve_whole_file(sync: SyncRepo, path: str, content: bytes | None = None) -> bytes:
    """Approve ``path`` whole in the workspace's saved state, as a maintainer would.

    As ``content`` (a hand edit), else as main has it; other files keep what
    was saved for them. Returns the content approved.
    """
    git = Git(sync.path)
    if content is None:
        blob = git.text("rev-parse", f"{sync.parent2}:{path}").strip()
        choice = decisions.FileChoice(decisions.Action.MAIN, blob)
    else:
        blob = git.run(["hash-object", "-w", "--stdin"], input=content).text.strip()
        choice = decisions.FileChoice(decisions.Action.EDITED, blob)
    key = decisions.SyncKey(sync.dev_base, sync.parent2)
    loaded = load_state(git, key, head=sync.head, remember=False)
    state = (
        loaded.state if loaded.resumed else decisions.new_state(key, branch="sync", head=sync.head)
    )
    approved = decisions.FileStatus.APPROVED
    save_state(git, decisions.choose_file(state, path, choice, status=approved))
    return raw_git(sync.path, "cat-file", "blob", blob)
