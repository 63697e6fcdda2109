"""Commands a repository configures never run when syncdesk reads it (a canary test).

The repository's own config and ``.git/info/attributes`` name a canary script
for every kind of command git runs from configuration on a read: textconv,
clean/smudge filters with ``merge.renormalize``, an external diff, a trailer
command, a pager. Each canary appends a line to a log. The report in every
format, and the repair preview (which builds a commit message with
``interpret-trailers``), must leave the log empty.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from syncdesk.tui.cli import main
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.test_cli_writers import approve_mains_core


def plant_canaries(sync: SyncRepo, log: Path) -> None:
    script = sync.path.parent / "canary"
    # Acts as `cat` (textconv, filters) and says it ran, with its own name and arguments.
    body = 'if [ -n "$1" ] && [ -f "$1" ]; then cat "$1"; else cat; fi'
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> {log}\n{body}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    settings = {
        "diff.canary.textconv": str(script),
        "diff.external": str(script),
        "filter.canary.clean": str(script),
        "filter.canary.smudge": str(script),
        "merge.renormalize": "true",
        "trailer.canary.key": "Canary",
        "trailer.canary.cmd": str(script),
        "trailer.canary.ifMissing": "add",
        "core.pager": str(script),
        "pager.log": str(script),
    }
    for key, value in settings.items():
        sync.git("config", key, value)
    info = sync.path / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("* diff=canary filter=canary\n")


@pytest.fixture
def canaried(tmp_path: Path) -> tuple[SyncRepo, Path]:
    sync = build_sync_repo(tmp_path / "r")
    log = tmp_path / "canary.log"
    plant_canaries(sync, log)
    return sync, log


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_the_report_runs_no_command_the_repository_configures(canaried, capsys, fmt):
    sync, log = canaried
    code = main(["--slice-size", "5", "report", "--repo", str(sync.path), "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert sync.dev_base[:8] in out  # the report really read the sync
    assert not log.exists(), log.read_text()


def test_the_repair_preview_runs_no_trailer_command(canaried, capsys):
    sync, log = canaried
    approve_mains_core(sync)
    code = main(["--slice-size", "5", "--repo", str(sync.path), "repair", "--preview"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Signed-off-by:" in out and "Canary" not in out  # signed off, nothing added
    assert not log.exists(), log.read_text()
