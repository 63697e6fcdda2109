"""Every path git accepts works: a repository under a folder named ``co:lon``, or with a newline.

git splits ``GIT_ALTERNATE_OBJECT_DIRECTORIES`` on ``:`` and the alternates file
on newlines; syncdesk's throwaway object stores point at the repository's through
them, so its path must be quoted as git unquotes it (services/git/runner.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from syncdesk.services.git.runner import Git
from syncdesk.services.sync.options import SyncOptions
from syncdesk.services.sync.session import load_report, open_sync
from syncdesk.services.workspace.load import load_workspace
from tests.syncrepo import build_sync_repo


@pytest.mark.parametrize("folder", ["co:lon", 'qu"ote', "new\nline", "back\\slash"])
def test_a_repository_under_an_odd_folder_reads_as_under_a_plain_one(
    tmp_path: Path, folder: str
) -> None:
    plain = build_sync_repo(tmp_path / "plain" / "r")
    odd = build_sync_repo(tmp_path / folder / "r")

    def facts(path: Path) -> tuple[int, int, bool]:
        session = open_sync(SyncOptions(repo=path, head="sync", slice_size=5))
        report = load_report(session)
        assert report.conflicts is not None
        workspace = load_workspace(session, audit=False)
        return len(report.conflicts.files), len(workspace.conflicts.files), report.anatomy.ok

    expected = facts(plain.path)
    assert expected[0] > 0
    assert facts(odd.path) == expected
    result = subprocess.run(
        [sys.executable, "-m", "syncdesk", "--repo", str(odd.path), "--head", "sync",
         "--slice-size", "5", "report", "--format", "json"],
        capture_output=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    assert len(json.loads(result.stdout)["conflicts"]["files"]) == expected[0]
    assert Git(odd.path).resolve("sync") == odd.head
