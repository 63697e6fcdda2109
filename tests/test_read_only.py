"""Reading a sync leaves the user's repository exactly as it was: no new objects, no ref moved."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from syncdesk.services.demo.world import build_world
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_report, open_sync


def _objects_and_refs(repo: Path) -> tuple[str, str]:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=repo, capture_output=True, text=True, check=True
        ).stdout

    counts = [
        line
        for line in git("count-objects", "-v").splitlines()
        if line.startswith(("count", "in-pack"))
    ]
    return "\n".join(counts), git("for-each-ref")


def test_the_full_report_writes_nothing_into_the_repository(tmp_path: Path) -> None:
    facts = build_world(tmp_path / "world")
    before = _objects_and_refs(facts.repo)
    session = open_sync(SyncOptions(repo=facts.repo, head=facts.sync_branch))
    report = load_report(session, detail=True)
    assert report.dev_advanced.merges_cleanly is True  # merge-tree did run
    assert report.conflicts is not None
    assert _objects_and_refs(facts.repo) == before


def _can_mount_read_only() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"], capture_output=True, check=False
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_read_only(), reason="a read-only bind mount needs root")
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_report_reads_a_repository_on_a_read_only_file_system(tmp_path: Path, fmt: str) -> None:
    # git's --remerge-diff makes a temporary object directory inside the object
    # store: on a read-only file system that failed the whole report.
    facts = build_world(tmp_path / "world")
    repo = str(facts.repo)
    report = [sys.executable, "-m", "syncdesk", "report", "--repo", repo, "--head",
              facts.sync_branch, "--format", fmt]  # fmt: skip
    inside = (
        f"mount --bind {shlex.quote(repo)} {shlex.quote(repo)}"
        f" && mount -o remount,ro,bind {shlex.quote(repo)} {shlex.quote(repo)}"
        f" && ! touch {shlex.quote(repo)}/probe 2>/dev/null"  # really read-only
        f" && exec {shlex.join(report)}"
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", inside],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert facts.slice[0][:8] in done.stdout  # the slice, really read
    written = subprocess.run(
        [sys.executable, "-m", "syncdesk", "report", "--repo", repo, "--head",
         facts.sync_branch, "--format", fmt],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.stdout == written.stdout  # the same report as on a writable disk
