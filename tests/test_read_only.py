"""Reading a sync leaves the user's repository exactly as it was: no new objects, no ref moved."""

from __future__ import annotations

import subprocess
from pathlib import Path

from syncdesk.services.demo.world import build_world
from syncdesk.services.sync.session import SyncOptions, load_report, open_sync


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
