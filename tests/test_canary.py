"""Commands a repository configures never run when syncdesk reads it (a canary test).

The repository's own config, its ``.git/info/attributes`` and an untracked
``.gitattributes`` in its work tree name a canary script for every kind of
command git runs from configuration: textconv, clean/smudge and process
filters with ``merge.renormalize``, a merge driver, an external diff (both
``diff.external`` and ``diff.<driver>.command``), a trailer command, a pager,
fsmonitor, every hook, ``core.sshCommand`` and the signing programs. Each
canary appends a line to a log. The report in every format, the repair
preview (which builds a commit message with ``interpret-trailers``), and
every screen and reading key of the TUI must leave the log empty; a control
test shows the same canaries fire for plain git on the same repository.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from syncdesk.screens.attribution_screen import AttributionScreen
from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.workspace.screen import WorkspaceScreen
from syncdesk.services.demo.facts import DemoFacts
from syncdesk.services.sandbox.server import Sandbox
from syncdesk.tui.cli.run import main
from syncdesk.tui.widgets.conflict_list import ConflictList
from tests.prworld import pr_app
from tests.syncrepo import SyncRepo, build_sync_repo
from tests.test_cli_writers import approve_mains_core
from tests.waiting import until, until_loaded, until_screen

# Every hook git 2.39 knows: hooksPath points at a directory holding each of them.
HOOKS = (
    "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
    "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase",
    "post-checkout", "post-merge", "pre-push", "pre-receive", "update", "proc-receive",
    "post-receive", "post-update", "reference-transaction", "push-to-checkout",
    "pre-auto-gc", "post-rewrite", "sendemail-validate", "fsmonitor-watchman",
    "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
    "post-index-change",
)  # fmt: skip
ATTRIBUTES = "* diff=canary filter=canary merge=canary\n"


def plant_canaries(repo: Path, log: Path) -> None:
    """Configure every command-running setting of ``repo`` to run a canary logging to ``log``."""
    script = repo.parent / "canary"
    # Acts as `cat` (textconv, filters) and says it ran, with its own name and arguments.
    body = 'if [ -n "$1" ] && [ -f "$1" ]; then cat "$1"; else cat; fi'
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> {log}\n{body}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    hooks = repo.parent / "canary-hooks"
    hooks.mkdir()
    for hook in HOOKS:
        (hooks / hook).symlink_to(script)
    settings = {
        "diff.canary.textconv": str(script),
        "diff.canary.command": str(script),
        "diff.external": str(script),
        "filter.canary.clean": str(script),
        "filter.canary.smudge": str(script),
        "filter.canary.process": str(script),
        "merge.renormalize": "true",
        "merge.canary.driver": f"{script} %O %A %B %P",
        "trailer.canary.key": "Canary",
        "trailer.canary.cmd": str(script),
        "trailer.canary.ifMissing": "add",
        "core.pager": str(script),
        "pager.log": str(script),
        "pager.show": str(script),
        "core.fsmonitor": str(script),
        "core.hooksPath": str(hooks),
        "core.sshCommand": str(script),
        "core.askPass": str(script),
        "credential.helper": f"!{script}",
        "gpg.program": str(script),
        "gpg.ssh.program": str(script),
        "gpg.x509.program": str(script),
        "gpg.ssh.defaultKeyCommand": str(script),
        "commit.gpgSign": "true",
        "log.showSignature": "true",
    }
    for key, value in settings.items():
        subprocess.run(["git", "config", key, value], cwd=repo, check=True)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text(ATTRIBUTES)
    (repo / ".gitattributes").write_text(ATTRIBUTES)  # untracked: read from the work tree


@pytest.fixture
def canaried(tmp_path: Path) -> tuple[SyncRepo, Path]:
    sync = build_sync_repo(tmp_path / "r")
    log = tmp_path / "canary.log"
    plant_canaries(sync.path, log)
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


def test_the_canaries_fire_for_plain_git(canaried):
    # The control: the same repository makes git itself run them, so an empty log
    # above means syncdesk kept them from running, not that they could not run.
    sync, log = canaried

    def fired_by(*args: str) -> list[str]:
        before = log.read_text().splitlines() if log.exists() else []
        subprocess.run(["git", *args], cwd=sync.path, capture_output=True, check=False)
        return (log.read_text().splitlines() if log.exists() else [])[len(before) :]

    merged = fired_by("merge-tree", "--write-tree", sync.dev_base, sync.slice_tip)
    assert any(" .merge_file_" in line for line in merged)  # the merge driver, with %O %A %B
    assert fired_by("blame", sync.slice_tip, "--", sync.conflicted[0])  # textconv
    assert fired_by("interpret-trailers", "--trailer", "canary: x")  # trailer.canary.cmd
    assert fired_by("status")  # fsmonitor and hooks


async def test_every_screen_and_reading_key_runs_no_command_the_repository_configures(
    pr_world: DemoFacts,
    pr_sandbox: Sandbox,
    tmp_path: Path,
) -> None:
    log = tmp_path / "canary.log"
    plant_canaries(pr_world.repo, log)
    app = pr_app(pr_world, pr_sandbox)
    async with app.run_test(size=(160, 45)) as pilot:
        await until_loaded(pilot, SliceScreen)
        await pilot.press("enter")  # a commit
        await until_loaded(pilot, CommitScreen)
        await pilot.press("escape")
        for key, screen in (("s", StatusScreen), ("f", FindingsScreen)):
            await until_screen(pilot, SliceScreen)
            await pilot.press(key)
            loaded: Any = await until_loaded(pilot, screen)
            assert loaded.data is not None  # the panel really read (origins are blamed)
            await pilot.press("escape")
        await until_screen(pilot, SliceScreen)
        await pilot.press("c")
        workspace: Any = await until_loaded(pilot, WorkspaceScreen)
        files = workspace.query_one(ConflictList)
        blamed = 0
        for row in range(files.row_count):
            files.focus()
            files.move_cursor(row=row)
            await pilot.press("enter")
            await until(pilot, lambda: workspace.conflict is not None, lambda: "a file opens")
            await pilot.press("n", "p", "v", "v", "x")
            if workspace.conflict.hunks:  # (a modify/delete file has none to blame)
                await pilot.press("i")  # who wrote the hunk: blame of both sides
                await until_screen(pilot, AttributionScreen)
                await pilot.press("escape")
                await until_screen(pilot, WorkspaceScreen)
                blamed += 1
        assert blamed >= 3
        await pilot.press("escape")
        await until_screen(pilot, SliceScreen)
    assert not log.exists(), log.read_text()
